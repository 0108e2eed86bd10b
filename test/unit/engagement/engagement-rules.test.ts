/**
 * The engagement rules that need no AWS: tags, the folding of a batch, the links SES must not
 * rewrite, the configuration set a mail names, and how an SNS message is read.
 */
import { describe, expect, it } from 'vitest';
import { configurationSetOf } from '../../../shared/adapters/mail/campaign-configuration-set.ts';
import { readEngagementEvent } from '../../../shared/adapters/mail/ses-engagement-event.ts';
import {
  campaignMailTags,
  type EngagementEvent,
  foldBatch,
  idOfTag,
  mailTokenOfTag,
  rateOf,
  topLinks,
} from '../../../shared/domain/engagement/engagement.ts';
import { markUntracked } from '../../../shared/domain/engagement/no-track.ts';

const open = (subscriberId: number, at: string, eventId: string): EngagementEvent => ({
  kind: 'open',
  newsletterId: 7,
  subscriberId,
  at,
  eventId,
});

describe('[engagement.tags] message tags', () => {
  it('are the issue, run and recipient ids, values SES accepts', () => {
    expect(campaignMailTags(12, 3, 4567, 'AAAAAAAAAAAAAAAAAAAAAA')).toEqual({
      newsletter: '12',
      run: '3',
      subscriber: '4567',
      mail: 'AAAAAAAAAAAAAAAAAAAAAA',
    });
  });

  it('[engagement.mail-token] and a token new for every mail: 128 random bits, as SES allows', () => {
    const tokens = Array.from({ length: 200 }, () => campaignMailTags(12, 3, 4567).mail);
    expect(new Set(tokens).size).toBe(200);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(mailTokenOfTag([token as string])).toBe(token);
    }
    for (const bad of [undefined, [], ['short'], ['A'.repeat(23)], ['AAAAAAAAAAAAAAAAAAAA.A']])
      expect(mailTokenOfTag(bad)).toBeUndefined();
  });

  it('read back only as positive whole numbers', () => {
    expect(idOfTag(['42'])).toBe(42);
    for (const bad of [undefined, [], ['0'], ['007'], ['4.5'], ['x'], ['-1'], ['1234567890123456']])
      expect(idOfTag(bad)).toBeUndefined();
  });
});

describe('[engagement.batch] folding a batch', () => {
  it('keeps one SNS message once and the earliest open per person; every distinct click', () => {
    const click: EngagementEvent = { ...open(1, '2026-11-22T10:03:00Z', 'c1'), kind: 'click' };
    const folded = foldBatch([
      open(1, '2026-11-22T10:05:00Z', 'a'),
      open(1, '2026-11-22T10:01:00Z', 'b'),
      open(1, '2026-11-22T10:01:00Z', 'b'),
      open(2, '2026-11-22T10:02:00Z', 'c'),
      click,
      { ...click, eventId: 'c2' },
      click,
    ]);
    expect(folded.events.map((event) => event.eventId)).toEqual(['b', 'c', 'c1', 'c2']);
    expect(folded.repeats).toBe(3);
  });

  it('rates are a share of the sent with one decimal; top links by clicks, then address', () => {
    expect(rateOf(1, 3)).toBe(33.3);
    expect(rateOf(2, 3)).toBe(66.7);
    expect(rateOf(5, 0)).toBe(0);
    const links = Array.from({ length: 12 }, (_, n) => ({
      url: `https://x.test/${n}`,
      clicks: n % 3,
    }));
    const top = topLinks(links);
    expect(top).toHaveLength(10);
    expect(top[0]).toEqual({ url: 'https://x.test/11', clicks: 2 });
    expect(top.map((link) => link.clicks)).toEqual([2, 2, 2, 2, 1, 1, 1, 1, 0, 0]);
  });
});

describe('[engagement.no-track] links SES must leave alone', () => {
  const unsubscribe = 'https://api.test/api/newsletter/v1/unsubscribe?token=1.2.abc&x=1';
  it('marks every anchor to the given links, in either quoting, and nothing else', () => {
    const html = [
      `<a href="${unsubscribe.replace('&', '&amp;')}">Leave</a>`,
      `<a class="x" href='${unsubscribe}'>Leave too</a>`,
      '<a href="https://example.org/a">A</a>',
      `<a href="${unsubscribe}" ses:no-track>Already</a>`,
      `<p>${unsubscribe}</p>`,
    ].join('\n');
    const marked = markUntracked(html, [unsubscribe]);
    const tags = marked.match(/<a\b[^>]*>/g) ?? [];
    expect(tags.filter((tag) => tag.includes('ses:no-track'))).toHaveLength(3);
    expect(tags[2]).toBe('<a href="https://example.org/a">');
    expect(marked.match(/ses:no-track/g)).toHaveLength(3);
    expect(marked).toContain(`<p>${unsubscribe}</p>`);
  });
});

describe('[engagement.tracking] the configuration set of a mail', () => {
  const sets = {
    withDeliveries: 'all',
    withoutDeliveries: 'campaign',
    trackedWithDeliveries: 'tracked-all',
    trackedWithoutDeliveries: 'tracked',
  };
  it('tracked only when asked, with deliveries only where they matter', () => {
    expect(configurationSetOf({ reportDelivery: false, track: true }, sets)).toBe('tracked');
    expect(configurationSetOf({ reportDelivery: true, track: true }, sets)).toBe('tracked-all');
    expect(configurationSetOf({ reportDelivery: false, track: false }, sets)).toBe('campaign');
    expect(configurationSetOf({ reportDelivery: true }, sets)).toBe('all');
    expect(() =>
      configurationSetOf(
        { reportDelivery: false, track: true },
        { withDeliveries: 'a', withoutDeliveries: 'b' },
      ),
    ).toThrow(/tracked/);
  });
});

describe('[engagement.dropped] reading a message of the engagement queue', () => {
  const envelope = (message: unknown, id = 'sns-1') =>
    JSON.stringify({ Type: 'Notification', MessageId: id, Message: JSON.stringify(message) });
  const mail = { tags: { newsletter: ['5'], subscriber: ['9'] } };

  it('an open and a click of a campaign mail, with SNS’s message id', () => {
    expect(
      readEngagementEvent(
        envelope({ eventType: 'Open', mail, open: { timestamp: '2026-11-22T10:00:00.000Z' } }),
      ),
    ).toEqual({
      kind: 'event',
      event: {
        kind: 'open',
        newsletterId: 5,
        subscriberId: 9,
        at: '2026-11-22T10:00:00.000Z',
        eventId: 'sns-1',
      },
    });
    const click = readEngagementEvent(
      envelope({
        eventType: 'Click',
        mail,
        click: { timestamp: '2026-11-22T10:00:00.000Z', link: 'https://e.test/x' },
      }),
    );
    expect(click).toMatchObject({
      kind: 'event',
      event: { kind: 'click', link: 'https://e.test/x' },
    });
  });

  it('[engagement.mail-token] with the mail’s token when it carries one, and only a well-formed one', () => {
    const token = 'abcdefghijklmnopqrstu_';
    const read = (tags: Record<string, string[]>) =>
      readEngagementEvent(
        envelope({
          eventType: 'Open',
          mail: { tags: { ...mail.tags, ...tags } },
          open: { timestamp: '2026-11-22T10:00:00.000Z' },
        }),
      );
    expect(read({ mail: [token] })).toMatchObject({ kind: 'event', event: { mail: token } });
    for (const bad of [['abc'], [`${token}!`], []]) {
      const reading = read({ mail: bad });
      expect(reading.kind).toBe('event');
      expect(reading.kind === 'event' && reading.event).not.toHaveProperty('mail');
    }
  });

  it('ignores other types and mail without ids; reports the rest as malformed, without values', () => {
    expect(readEngagementEvent(envelope({ eventType: 'Delivery', mail }))).toMatchObject({
      kind: 'ignored',
    });
    expect(
      readEngagementEvent(
        envelope({
          eventType: 'Open',
          mail: { tags: { test: ['true'] } },
          open: { timestamp: '2026-11-22T10:00:00Z' },
        }),
      ),
    ).toMatchObject({ kind: 'ignored' });
    const bad = readEngagementEvent(
      envelope({ eventType: 'Click', mail, click: { timestamp: 'yesterday', link: 'a@b.test' } }),
    );
    expect(bad).toMatchObject({ kind: 'malformed' });
    expect(JSON.stringify(bad)).not.toContain('a@b.test');
    expect(readEngagementEvent('{"Type":"SubscriptionConfirmation"}')).toMatchObject({
      kind: 'malformed',
    });
    expect(readEngagementEvent(envelope('not an object'))).toMatchObject({ kind: 'ignored' });
  });
});
