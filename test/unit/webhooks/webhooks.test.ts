import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../../shared/adapters/webhooks/webhook-sender.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import { isPublicAddress } from '../../../shared/domain/webhooks/webhook-address.ts';
import {
  afterDelivery,
  DISABLE_AFTER_SECONDS,
  type EndpointHealth,
  nextAttemptAt,
  RETRY_DELAYS_SECONDS,
} from '../../../shared/domain/webhooks/webhook-retries.ts';
import {
  newSigningSecret,
  rotateSecrets,
  signDelivery,
} from '../../../shared/domain/webhooks/webhook-signing.ts';
import { parseWebhookUrl } from '../../../shared/domain/webhooks/webhook-url.ts';

const onAws = { allowLocalHttp: false };
const local = { allowLocalHttp: true };

/** A receiver on loopback: answers with `reply`, keeps what arrived. */
let receiver: Server;
let receiverUrl: string;
const arrived: { headers: IncomingMessage['headers']; body: string }[] = [];
let reply: { status: number; location?: string } = { status: 204 };

beforeAll(async () => {
  receiver = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      arrived.push({ headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(reply.status, reply.location ? { location: reply.location } : {}).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

describe('[webhooks.url] an endpoint URL', () => {
  const refused = (raw: string, policy = onAws) => isNewsletterError(parseWebhookUrl(raw, policy));

  it('is https to a public host on AWS; plain http only to loopback, only locally', () => {
    expect(refused('https://hooks.example.com/in')).toBe(false);
    expect(refused('http://hooks.example.com/in')).toBe(true);
    expect(refused(receiverUrl)).toBe(true);
    expect(refused(receiverUrl, local)).toBe(false);
    expect(refused('http://10.0.0.5/in', local)).toBe(true);
  });

  it('names no private, loopback or link-local host, and carries no credentials', () => {
    for (const raw of [
      'https://127.0.0.1/in',
      'https://[::1]/in',
      'https://169.254.169.254/latest/meta-data',
      'https://192.168.1.10/in',
      'https://[fd00:ec2::254]/in',
      'https://[::ffff:127.0.0.1]/in',
      'https://localhost/in',
      'https://printer.local/in',
      'https://intranet/in',
      'https://user:pass@hooks.example.com/in',
      'not a url',
    ])
      expect(refused(raw), raw).toBe(true);
  });
});

describe('[webhooks.ssrf] delivery reaches public addresses only', () => {
  it('classifies addresses', () => {
    for (const address of ['93.184.216.34', '2606:4700::6810:85e5'])
      expect(isPublicAddress(address), address).toBe(true);
    for (const address of ['10.1.2.3', '172.20.0.1', '100.64.0.1', '0.0.0.0', '::', 'fe80::1'])
      expect(isPublicAddress(address), address).toBe(false);
  });

  it('refuses a name whose DNS answers include a private address, and sends nothing', async () => {
    const headers = signDelivery({ id: 'evt_1', body: '{}', at: new Date() }, []);
    const count = arrived.length;
    const outcome = await sendWebhook(new URL('https://hooks.example.com/in'), headers, '{}', {
      ...onAws,
      resolve: async () => ['93.184.216.34', '169.254.169.254'],
    });
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome.error).toContain('169.254.169.254');
    expect(arrived.length).toBe(count);
  });

  it('does not follow a redirect: the attempt fails and nothing goes where it points', async () => {
    const count = arrived.length;
    reply = { status: 307, location: 'http://169.254.169.254/latest/meta-data' };
    try {
      const headers = signDelivery({ id: 'evt_2', body: '{}', at: new Date() }, []);
      const outcome = await sendWebhook(new URL(receiverUrl), headers, '{}', local);
      expect(outcome).toMatchObject({ ok: false, status: 307 });
      expect(outcome.error).toContain('redirects are not followed');
      expect(arrived.length).toBe(count + 1);
    } finally {
      reply = { status: 204 };
    }
  });
});

describe('[webhooks.signed] deliveries are signed per Standard Webhooks', () => {
  it('a receiver verifies one with the standardwebhooks package in a line', async () => {
    const secret = newSigningSecret();
    const event = { id: 'evt_3', type: 'subscriber.confirmed' };
    const body = JSON.stringify(event);
    const headers = signDelivery({ id: event.id, body, at: new Date() }, [
      { secret, created: new Date().toISOString() },
    ]);
    expect(await sendWebhook(new URL(receiverUrl), headers, body, local)).toEqual({
      ok: true,
      status: 204,
    });
    const got = arrived.at(-1);
    if (!got) throw new Error('nothing arrived');
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(
      event,
    );
    expect(got.headers['webhook-id']).toBe('evt_3');
    // Another secret, or a changed body, does not verify.
    expect(() =>
      new Webhook(newSigningSecret()).verify(got.body, got.headers as Record<string, string>),
    ).toThrow();
    expect(() =>
      new Webhook(secret).verify(`${got.body} `, got.headers as Record<string, string>),
    ).toThrow();
  });
});

describe('[webhooks.rotation] a secret is rotated without a gap', () => {
  it('during the overlap both secrets sign; after it only the new one', () => {
    const now = new Date();
    const old = newSigningSecret();
    const fresh = newSigningSecret();
    const secrets = rotateSecrets([{ secret: old, created: now.toISOString() }], fresh, now);
    const body = '{"id":"evt_4"}';
    const headers = signDelivery({ id: 'evt_4', body, at: now }, secrets);
    for (const secret of [old, fresh])
      expect(new Webhook(secret).verify(body, { ...headers })).toEqual({ id: 'evt_4' });
    const dayLater = new Date(now.getTime() + 86_400_000);
    const later = signDelivery({ id: 'evt_4', body, at: dayLater }, secrets);
    expect(later['webhook-signature'].split(' ')).toHaveLength(1);
    expect(later).toEqual(
      signDelivery({ id: 'evt_4', body, at: dayLater }, [{ secret: fresh, created: '' }]),
    );
  });
});

describe('[webhooks.retries] a failed delivery is retried with backoff for more than a day', () => {
  it('the schedule spans over 24 hours, then ends', () => {
    const total = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThan(86_400);
    const failed = new Date('2026-11-02T10:00:00.000Z');
    expect(nextAttemptAt(1, failed)?.toISOString()).toBe('2026-11-02T10:00:05.000Z');
    expect(nextAttemptAt(RETRY_DELAYS_SECONDS.length + 1, failed)).toBeUndefined();
  });

  it('a receiver down for an hour of simulated time gets the event at the first try after', () => {
    const start = Date.parse('2026-11-02T10:00:00.000Z');
    const backAt = start + 3_600_000;
    let at = new Date(start);
    let attempts = 1;
    while (at.getTime() < backAt) {
      const next = nextAttemptAt(attempts, at);
      if (!next) throw new Error('gave up within the hour');
      at = next;
      attempts += 1;
    }
    // 10:00, +5 s, +5 min, +30 min, +2 h: the fifth attempt, at 12:35:05, succeeds.
    expect(attempts).toBe(5);
    expect(at.toISOString()).toBe('2026-11-02T12:35:05.000Z');
  });
});

describe('[webhooks.disable] an endpoint failing for a day is disabled, saying why', () => {
  it('a success clears the failing time; a day of failures disables', () => {
    const start = new Date('2026-11-02T10:00:00.000Z');
    const later = (seconds: number) => new Date(start.getTime() + seconds * 1000);
    let health: EndpointHealth = { state: 'enabled' };
    health = afterDelivery(health, { ok: false, at: start, error: 'HTTP 500' });
    expect(health).toEqual({ state: 'enabled', failing_since: start.toISOString() });
    expect(afterDelivery(health, { ok: true, at: later(60) })).toEqual({ state: 'enabled' });
    health = afterDelivery(health, { ok: false, at: later(DISABLE_AFTER_SECONDS - 1) });
    expect(health.state).toBe('enabled');
    health = afterDelivery(health, {
      ok: false,
      at: later(DISABLE_AFTER_SECONDS),
      error: 'HTTP 503',
    });
    expect(health.state).toBe('disabled');
    expect(health.disabled_reason).toContain('HTTP 503');
    expect(afterDelivery(health, { ok: true, at: later(DISABLE_AFTER_SECONDS + 5) }).state).toBe(
      'disabled',
    );
  });
});
