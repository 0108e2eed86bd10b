import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import {
  type RecordingMailer,
  type TestClock,
  testDependencies,
  testSettings,
} from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';
import { settling, streamWorker } from '../support/stream-worker.ts';

let newsletter: NewsletterOperations;
let mailer: RecordingMailer;
let clock: TestClock;
let current: { settings: ReturnType<typeof testSettings> };
let subscribers: () => Promise<number>;
let scanAll: () => Promise<Record<string, unknown>[]>;

beforeEach(async () => {
  const { store, client, tableName } = await freshStore();
  const deps = testDependencies(store);
  ({ mailer, clock, current } = deps);
  newsletter = settling(createNewsletter(deps), streamWorker(client, tableName, deps).settle);
  scanAll = async () => (await client.send(new ScanCommand({ TableName: tableName }))).Items ?? [];
  subscribers = async () =>
    (await scanAll()).filter((item) => String(item.pk).startsWith('SUBSCRIBER#')).length;
});

describe('[subscribe.honeypot] honeypot', () => {
  it('a filled honeypot gets the usual answer and changes nothing', async () => {
    const answer = await newsletter.subscribe(
      { email: 'bot@example.com', nl_website: 'http://spam' },
      { trusted: false },
    );
    expect(answer).toEqual({ email: 'bot@example.com', status: 'pending' });
    expect(await subscribers()).toBe(0);
    expect(mailer.sent).toHaveLength(0);
  });

  it('an empty honeypot is a person; the field name is a setting and can be turned off', async () => {
    await newsletter.subscribe({ email: 'person@example.com', nl_website: '' }, { trusted: false });
    expect(await subscribers()).toBe(1);
    current.settings = testSettings({ honeypot_field: '' });
    await newsletter.subscribe({ email: 'other@example.com', nl_website: 'x' }, { trusted: false });
    expect(await subscribers()).toBe(2);
  });
});

describe('[subscribe.rate-limit] per-client rate limit', () => {
  it('allows max_requests keyless calls per window and IP, then 429 until the next window', async () => {
    current.settings = testSettings({ public_rate_limit: { max_requests: 3, window_minutes: 10 } });
    const from = (ip: string, i: number) =>
      newsletter.subscribe({ email: `r${i}@example.com` }, { trusted: false, clientIp: ip });
    for (let i = 0; i < 3; i += 1)
      expect(isNewsletterError(await from('203.0.113.7', i))).toBe(false);
    const limited = await from('203.0.113.7', 3);
    expect(isNewsletterError(limited) && limited).toMatchObject({
      code: 'rate_limited',
      status: 429,
    });
    // Another client is not affected, nor is a trusted caller.
    expect(isNewsletterError(await from('198.51.100.1', 4))).toBe(false);
    expect(isNewsletterError(await newsletter.subscribe({ email: 'trusted@example.com' }))).toBe(
      false,
    );
    clock.advance(10 * 60_000);
    expect(isNewsletterError(await from('203.0.113.7', 5))).toBe(false);
    expect(await subscribers()).toBe(6);
  });

  it('defaults to 20 calls per 10 minutes, counted under a hash of the IP that expires by TTL', async () => {
    // The default settings: no public_rate_limit given.
    expect(testSettings().public_rate_limit).toEqual({ max_requests: 20, window_minutes: 10 });
    const ip = '203.0.113.42';
    for (let i = 0; i < 20; i += 1) {
      const answer = await newsletter.subscribe(
        { email: `d${i}@example.com` },
        { trusted: false, clientIp: ip },
      );
      expect(isNewsletterError(answer), `call ${i + 1}`).toBe(false);
    }
    const limited = await newsletter.subscribe(
      { email: 'd20@example.com' },
      { trusted: false, clientIp: ip },
    );
    expect(isNewsletterError(limited) && limited.code).toBe('rate_limited');
    const counters = (await scanAll()).filter((item) => String(item.pk).startsWith('RATE#'));
    expect(counters).toHaveLength(1);
    const [counter] = counters;
    // The counter keeps no address: its SHA-256 (hex) stands in for it. The address is kept
    // only as consent evidence on the subscribers it created ([subscribe.consent]).
    const items = await scanAll();
    const evidence = items.filter((item) => String(item.pk).startsWith('SUBSCRIBER#'));
    expect(
      evidence.map((item) => (item.consent as { subscribed: { ip?: string } }).subscribed.ip),
    ).toEqual(Array(20).fill(ip));
    expect(JSON.stringify(items.filter((item) => !evidence.includes(item)))).not.toContain(ip);
    expect(String(counter?.pk)).toMatch(/^RATE#ip#[0-9a-f]{32}#10#\d+$/);
    expect(counter?.request_count).toBe(20);
    // The counter dies with its window (TTL), a minute after it ends.
    const windowEnd = (Math.floor(clock.current.getTime() / 600_000) + 1) * 600;
    expect(counter?.expires_at).toBe(windowEnd + 60);
  });

  it('rejected input does not count, so bad requests change nothing', async () => {
    current.settings = testSettings({ public_rate_limit: { max_requests: 1, window_minutes: 10 } });
    const bad = await newsletter.subscribe(
      { email: 'not-an-address' },
      { trusted: false, clientIp: '203.0.113.9' },
    );
    expect(isNewsletterError(bad) && bad.status).toBe(400);
    const good = await newsletter.subscribe(
      { email: 'ok@example.com' },
      { trusted: false, clientIp: '203.0.113.9' },
    );
    expect(isNewsletterError(good)).toBe(false);
  });
});
