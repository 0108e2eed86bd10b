import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../shared/adapters/store/store-port.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { NewsletterIssueRecord } from '../../shared/domain/newsletter-issue.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import {
  type RecordingLogger,
  type RecordingMailer,
  type RecordingMetrics,
  type TestClock,
  testDependencies,
} from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';
import { settling, streamWorker } from '../support/stream-worker.ts';

let newsletter: NewsletterOperations;
let mailer: RecordingMailer;
let clock: TestClock;
let logger: RecordingLogger;
let metrics: RecordingMetrics;
let store: Store;
let itemCount: () => Promise<number>;
let items: () => Promise<Record<string, unknown>[]>;
/** Every item, the id counters and subscriber counts included. */
let table: () => Promise<Record<string, unknown>[]>;

beforeEach(async () => {
  const fresh = await freshStore();
  store = fresh.store;
  const deps = testDependencies(store);
  ({ mailer, clock, logger, metrics } = deps);
  newsletter = settling(
    createNewsletter(deps),
    streamWorker(fresh.client, fresh.tableName, deps).settle,
  );
  table = async () =>
    (await fresh.client.send(new ScanCommand({ TableName: fresh.tableName }))).Items ?? [];
  // The id counters and the subscriber counts (with their marks of counted changes) belong to
  // the table, not to any subscriber.
  items = async () =>
    (await table()).filter((item) => !/^(COUNTER|COUNTS|COUNTED)#/.test(String(item.pk)));
  itemCount = async () => (await items()).length;
});

describe('add_subscriber', () => {
  it('writes C by default, with any configured list including private ones, and mails nobody', async () => {
    const added = (await newsletter.add_subscriber({
      email: 'a@example.com',
      lists: '2',
    })) as Subscriber;
    expect(added).toMatchObject({ email: 'a@example.com', status: 'C', lists: [2, 3] });
    expect(added.id).toBeGreaterThan(0);
    expect(mailer.sent).toHaveLength(0);
  });

  it('takes status S', async () => {
    const added = (await newsletter.add_subscriber({
      email: 'b@example.com',
      status: 'S',
    })) as Subscriber;
    expect(added.status).toBe('S');
  });

  it('an existing address is a 400 email_exists and changes nothing', async () => {
    await newsletter.add_subscriber({ email: 'c@example.com', name: 'First' });
    const again = await newsletter.add_subscriber({ email: 'C@example.com', name: 'Second' });
    expect(isNewsletterError(again) && again).toMatchObject({ code: 'email_exists', status: 400 });
    const [only] = (await newsletter.subscribers()) as Subscriber[];
    expect(only?.name).toBe('First');
  });

  it('[subscribe.no-write-unchanged] an existing address writes nothing, not even an id from the counter', async () => {
    await newsletter.add_subscriber({ email: 'e@example.com' });
    const before = await table();
    const again = await newsletter.add_subscriber({ email: 'e@example.com', name: 'Second' });
    expect(isNewsletterError(again) && again.code).toBe('email_exists');
    expect(await table()).toEqual(before);
  });

  it('[params.unknown-profile-field] leaves out a field the settings do not define, names it in the answer, warns and counts it', async () => {
    const added = await newsletter.add_subscriber({
      email: 'p@example.com',
      profile_1: 'Lyon',
      profile_9: 'shoe size',
    });
    expect(added).toMatchObject({
      email: 'p@example.com',
      profile: { '1': 'Lyon' },
      ignored_profile_fields: ['profile_9'],
    });
    expect(logger.lines.filter((line) => line.event === 'unknown_profile_fields_ignored')).toEqual([
      { level: 'warn', event: 'unknown_profile_fields_ignored', fields: { fields: 'profile_9' } },
    ]);
    expect(metrics.counts.UnknownProfileFields).toBe(1);
  });

  it('rejects bad input with a 400 naming the parameter and stores nothing', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{}, 'missing_parameter', /email/],
      [{ email: 'a@b' }, 'invalid_email', /email/],
      [{ email: 'x@example.com', status: 'U' }, 'invalid_parameter', /status/],
      [{ email: 'x@example.com', lists: [99] }, 'unknown_list', /lists/],
      [
        { email: 'x@example.com', profile_nope: 'v'.repeat(256) },
        'invalid_parameter',
        /profile_nope/,
      ],
      [{ email: 'x@example.com', name: 'a\r\nb' }, 'invalid_parameter', /name/],
      [{ email: 'x@example.com', gender: 'x' }, 'invalid_parameter', /gender/],
    ];
    for (const [params, code, message] of cases) {
      const result = await newsletter.add_subscriber(params);
      expect(isNewsletterError(result) && result.code).toBe(code);
      expect(isNewsletterError(result) && result.message).toMatch(message);
    }
    expect(await itemCount()).toBe(0);
  });

  it('200 simultaneous calls for distinct addresses yield 200 distinct ids', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        newsletter.add_subscriber({ email: `bulk${i}@example.com` }),
      ),
    );
    const ids = results.map((r) => (r as Subscriber).id);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expect(new Set(ids).size).toBe(200);
    // 200 writes at once on the run's one DynamoDB Local: 26 s of the default 30 s on a 2-core
    // machine loaded by other test runs, so a budget of its own; the verdict is not about speed.
  }, 120_000);
});

describe('ids', () => {
  it('are positive integers increasing with creation time and never reused', async () => {
    const first = (await newsletter.add_subscriber({ email: 'i1@example.com' })) as Subscriber;
    const second = (await newsletter.subscribe({ email: 'i2@example.com' })) as Subscriber;
    await newsletter.delete_subscriber({ email: 'i2@example.com' });
    const third = (await newsletter.add_subscriber({ email: 'i2@example.com' })) as Subscriber;
    expect(second.id).toBeGreaterThan(first.id);
    expect(third.id).toBeGreaterThan(second.id);
  });
});

describe('unsubscribe', () => {
  it('S and C become U; U again is a success', async () => {
    await newsletter.add_subscriber({ email: 's@example.com', status: 'S' });
    await newsletter.add_subscriber({ email: 'c@example.com' });
    expect(((await newsletter.unsubscribe({ email: 's@example.com' })) as Subscriber).status).toBe(
      'U',
    );
    expect(((await newsletter.unsubscribe({ email: 'c@example.com' })) as Subscriber).status).toBe(
      'U',
    );
    expect(((await newsletter.unsubscribe({ email: 'c@example.com' })) as Subscriber).status).toBe(
      'U',
    );
  });

  it('an unknown address is a 404', async () => {
    const result = await newsletter.unsubscribe({ email: 'nobody@example.com' });
    expect(isNewsletterError(result) && result).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('delete_subscriber', () => {
  it('removes the subscriber and every item that belongs to it', async () => {
    await newsletter.subscribe({ email: 'd@example.com' });
    await newsletter.subscribe({ email: 'keep@example.com' });
    // Two subscribers, their activation tokens, and the two sent mails' items.
    expect(await itemCount()).toBe(6);
    expect(await newsletter.delete_subscriber({ email: 'D@example.com' })).toEqual({
      deleted: true,
      email: 'd@example.com',
    });
    expect(await itemCount()).toBe(4);
    expect(JSON.stringify(await items())).not.toContain('d@example.com');
    expect(((await newsletter.subscribers()) as Subscriber[]).map((s) => s.email)).toEqual([
      'keep@example.com',
    ]);
  });

  it('[params.email] an invalid or missing address is a 400 naming email, and deletes nothing', async () => {
    await newsletter.add_subscriber({ email: 'stay@example.com' });
    const before = await table();
    for (const params of [{ email: 'stay@' }, {}]) {
      const result = await newsletter.delete_subscriber(params);
      expect(isNewsletterError(result) && result.status).toBe(400);
      expect(isNewsletterError(result) && result.message).toMatch(/email/);
    }
    expect(await table()).toEqual(before);
  });

  it('an unknown address is a 404', async () => {
    const result = await newsletter.delete_subscriber({ email: 'nobody@example.com' });
    expect(isNewsletterError(result) && result).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('subscribers', () => {
  it('returns the 20 newest, newest first, after 25 inserts', async () => {
    for (let i = 0; i < 25; i += 1) {
      await newsletter.add_subscriber({ email: `n${i}@example.com`, status: i % 2 ? 'S' : 'C' });
      clock.advance(1000);
    }
    const listed = (await newsletter.subscribers()) as Subscriber[];
    expect(listed.map((s) => s.email)).toEqual(
      Array.from({ length: 20 }, (_, i) => `n${24 - i}@example.com`),
    );
    expect(listed[0]).not.toHaveProperty('version');
    expect(listed[0]).not.toHaveProperty('tokens');
  });
});

describe('newsletters', () => {
  const issue = (
    id: number,
    status: NewsletterIssueRecord['status'],
    hidden = false,
  ): NewsletterIssueRecord => ({
    id,
    subject: `Issue ${id}`,
    status,
    created: new Date(Date.UTC(2026, 0, id)).toISOString(),
    sent_at: status === 'sent' ? new Date(Date.UTC(2026, 0, id, 12)).toISOString() : null,
    private: hidden,
    ...(status === 'sent' ? { url: `https://news.example.com/issues/${id}` } : {}),
  });

  it('returns the 10 newest; keyless callers see only sent, non-private issues', async () => {
    for (let id = 1; id <= 25; id += 1) {
      await store.putNewsletterIssue(issue(id, id % 5 === 0 ? 'draft' : 'sent', id % 7 === 0));
    }
    const all = (await newsletter.newsletters()) as { id: number }[];
    expect(all.map((n) => n.id)).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17, 16]);
    const visible = (await newsletter.newsletters({}, { trusted: false })) as {
      id: number;
      status: string;
    }[];
    expect(visible.map((n) => n.id)).toEqual([24, 23, 22, 19, 18, 17, 16, 13, 12, 11]);
    expect(visible.every((n) => n.status === 'sent')).toBe(true);
    expect(visible[0]).toEqual({
      id: 24,
      subject: 'Issue 24',
      status: 'sent',
      created: '2026-01-24T00:00:00.000Z',
      sent_at: '2026-01-24T12:00:00.000Z',
      url: 'https://news.example.com/issues/24',
    });
  });

  it('[campaign.listing] keyed callers see how many recipients an issue has and how many were sent; keyless callers do not', async () => {
    await store.putNewsletterIssue({ ...issue(1, 'sent'), total: 120, sent: 117 });
    await store.putNewsletterIssue(issue(2, 'draft'));
    const keyed = (await newsletter.newsletters()) as Record<string, unknown>[];
    expect(keyed.map(({ id, total, sent }) => ({ id, total, sent }))).toEqual([
      { id: 2, total: 0, sent: 0 },
      { id: 1, total: 120, sent: 117 },
    ]);
    const keyless = (await newsletter.newsletters({}, { trusted: false })) as object[];
    expect(keyless).toHaveLength(1);
    expect(keyless[0]).not.toHaveProperty('total');
    expect(keyless[0]).not.toHaveProperty('sent');
  });
});
