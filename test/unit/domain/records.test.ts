/** The small record builders: consent events, page links, outbox mails, the subscriber view. */
import { describe, expect, it } from 'vitest';
import { consentEvent } from '../../../shared/domain/consent.ts';
import { pageLink } from '../../../shared/domain/links.ts';
import { outboxMail } from '../../../shared/domain/outbox.ts';
import { type SubscriberRecord, toSubscriber } from '../../../shared/domain/subscriber.ts';

const NOW = new Date('2026-11-22T10:00:00.000Z');

describe('consent events', () => {
  it('[subscribe.consent] keep the time, the client IP and at most 256 characters of the User-Agent', () => {
    expect(consentEvent(NOW, { clientIp: '203.0.113.9', userAgent: 'Form/1.0' })).toEqual({
      at: NOW.toISOString(),
      ip: '203.0.113.9',
      user_agent: 'Form/1.0',
    });
    const long = consentEvent(NOW, { userAgent: 'x'.repeat(300) });
    expect(long.user_agent).toBe('x'.repeat(256));
    expect(consentEvent(NOW, { clientIp: '', userAgent: '' })).toEqual({ at: NOW.toISOString() });
    expect(Object.keys(consentEvent(NOW, {}))).toEqual(['at']);
  });
});

describe('page links', () => {
  it('[subscribe.public-base-url] join the API root, the page and the token, whatever slashes end the root', () => {
    const token = 'abc_DEF-123';
    expect(pageLink('https://news.example.com/api', 'confirm', token)).toBe(
      'https://news.example.com/api/subscription/confirm?token=abc_DEF-123',
    );
    expect(pageLink('https://news.example.com/api//', 'unsubscribe', token)).toBe(
      'https://news.example.com/api/subscription/unsubscribe?token=abc_DEF-123',
    );
    expect(pageLink('https://news.example.com/a/b/', 'confirm', 'a b&c')).toBe(
      'https://news.example.com/a/b/subscription/confirm?token=a%20b%26c',
    );
  });
});

describe('outbox mails', () => {
  it('start queued with no attempts, carrying the link base and what confirming applies', () => {
    const subscriber = { email: 'ada@example.com', id: 7 };
    const mail = outboxMail('activation', subscriber, 'https://news.example.com/api', NOW, {
      welcome: false,
    });
    expect(mail).toEqual({
      mail_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      kind: 'activation',
      email: 'ada@example.com',
      subscriber_id: 7,
      link_base: 'https://news.example.com/api',
      state: 'queued',
      attempts: 0,
      created: NOW.toISOString(),
      on_confirm: { welcome: false },
    });
    const plain = outboxMail('welcome', subscriber, undefined, NOW);
    expect(Object.keys(plain).sort()).toEqual(
      ['attempts', 'created', 'email', 'kind', 'mail_id', 'state', 'subscriber_id'].sort(),
    );
    expect(plain.mail_id).not.toBe(mail.mail_id);
  });
});

describe('the subscriber view', () => {
  it('[subscribe.consent] shows the visible fields and the consent, never tokens or process state', () => {
    const consent = { channel: 'api' as const, subscribed: { at: NOW.toISOString() } };
    const record: SubscriberRecord = {
      id: 7,
      email: 'ada@example.com',
      name: 'Ada',
      surname: 'Lovelace',
      gender: 'f',
      lists: [1, 3],
      profile: { '1': 'London' },
      status: 'S',
      created: '2026-11-01T08:00:00.000Z',
      updated: '2026-11-02T08:00:00.000Z',
      version: 4,
      tokens: { abc: 1 },
      activation_sent_at: NOW.getTime(),
      activation_log: [NOW.getTime()],
      expires_at: 1,
      consent,
    };
    const visible = {
      id: 7,
      email: 'ada@example.com',
      name: 'Ada',
      surname: 'Lovelace',
      gender: 'f',
      lists: [1, 3],
      profile: { '1': 'London' },
      status: 'S',
      created: '2026-11-01T08:00:00.000Z',
      updated: '2026-11-02T08:00:00.000Z',
    };
    expect(toSubscriber(record)).toStrictEqual({ ...visible, consent });
    const { consent: _consent, ...withoutConsent } = record;
    expect(toSubscriber(withoutConsent)).toStrictEqual(visible);
  });
});
