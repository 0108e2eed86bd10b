/**
 * An issue's life over HTTP only, through API v2 and our extension ([v2.issues]): subscribers
 * added, an issue created, edited, tested, sent, watched to `sent`, reported as JSON and CSV,
 * copied, scheduled and unscheduled; the lifecycle's refusals and a read key's 403 on the way.
 * The synthesized engine (the planner and sender functions with their roles, their queues)
 * mails through the local SES; a schedule created over HTTP fires at the local EventBridge
 * Scheduler when the test moves its clock, as campaign-schedule.test.ts does for the CLI.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import { SUBSCRIBER_INDEX_PARTITIONS } from '../../shared/adapters/store/subscriber-index.ts';
import { toSubscriberItem } from '../../shared/adapters/store/subscriber-item.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import { newSubscriberRecord } from '../../shared/domain/decide-subscribe.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { parseSettings } from '../../shared/domain/parse-settings.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { documentClient } from '../support/local-dynamo.ts';
import {
  type ApiResponse,
  BASELINE_SETTINGS,
  type LocalService,
  startLocalService,
} from './support/local-service.ts';

vi.setConfig({ testTimeout: 120_000 });

let service: LocalService;
let v2: string;
let write: string;
let read: string;
/** The local EventBridge Scheduler's clock: it fires what is due when the test says so. */
const clock = { now: new Date() };

beforeAll(async () => {
  // Scheduled rules (the sweeper) fire only when a test fires them, schedules when their time
  // comes on the test's clock.
  service = await startLocalService({ schedulerNow: () => clock.now, runSchedules: false });
  v2 = service.apiRoot.replace(/\/v1$/, '/v2');
  const keys = new DynamoClientKeyStore(
    documentClient(service.stack.dynamo.endpoint),
    service.stack.tableName,
  );
  const made = async (permission: 'read' | 'write') => {
    const key = await createClientKey({ keys, now: () => new Date() }, 'journey', permission);
    if (isNewsletterError(key)) throw new Error(key.message);
    return `client_key=${key.record.client_key}&client_secret=${key.clientSecret}`;
  };
  write = await made('write');
  read = await made('read');
});

afterAll(async () => {
  await service?.stop();
});

function call(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return service.request(method, `${v2}${path}?${key}`, {
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const READERS = ['journey-a@example.com', 'journey-b@example.com', 'journey-c@example.com'];
const SUBJECT = 'The journey issue';

describe('an issue over HTTP only', () => {
  it('[v2.issues] create a list, add to it, create, edit, test, send, watch, report, copy', async () => {
    const list = await call('POST', '/lists', write, { name: 'Journey readers' });
    expect(list.status, list.text).toBe(201);
    const listId = (list.json as { id: number }).id;
    for (const email of READERS) {
      const added = await call('POST', '/subscribers', write, {
        email,
        first_name: email.slice(8, 9).toUpperCase(),
        status: 'confirmed',
        lists: [listId],
      });
      expect(added.status, added.text).toBe(201);
    }

    // A read key cannot create; a write key can.
    expect((await call('POST', '/issues', read, { subject: SUBJECT })).status).toBe(403);
    const created = await call('POST', '/issues', write, {
      subject: 'draft subject',
      html: '<p>Hello {name}, this is the journey.</p><p><a href="{unsubscription_url}">Leave</a></p>',
      lists: [listId],
    });
    expect(created.status, created.text).toBe(201);
    const issue = created.json as { id: number; status: string; lists: number[] };
    expect(issue).toMatchObject({ status: 'draft', lists: [listId] });

    const edited = await call('PUT', `/issues/${issue.id}`, write, { subject: SUBJECT });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.json).toMatchObject({ id: issue.id, subject: SUBJECT, status: 'draft' });

    // A draft cannot be paused or cancelled: the lifecycle's refusal, in the error shape.
    for (const action of ['pause', 'cancel']) {
      const refused = await call('POST', `/issues/${issue.id}/${action}`, write);
      expect(refused.status, refused.text).toBe(409);
      expect((refused.json as { code: string }).code).toBe('invalid_state');
    }

    const tested = await call('POST', `/issues/${issue.id}/test`, write, {
      to: ['tester@example.com'],
    });
    expect(tested.status, tested.text).toBe(200);
    expect(tested.json).toEqual({ newsletter_id: issue.id, to: ['tester@example.com'] });
    await vi.waitUntil(async () => (await service.mails('tester@example.com')).length > 0, {
      timeout: 30_000,
      interval: 250,
    });
    expect((await service.mails('tester@example.com'))[0]?.subject).toBe(`[TEST] ${SUBJECT}`);

    const sent = await call('POST', `/issues/${issue.id}/send`, write);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.json).toMatchObject({ id: issue.id, status: 'sending' });

    // Watch its counts over HTTP until it is sent.
    let watched: { status?: string; sent?: number; total?: number } = {};
    await vi.waitUntil(
      async () => {
        watched = (await call('GET', `/newsletters/${issue.id}`, read)).json as typeof watched;
        return watched.status === 'sent';
      },
      { timeout: 90_000, interval: 500 },
    );
    expect(watched).toMatchObject({ status: 'sent', total: 3, sent: 3 });
    for (const email of READERS) {
      expect((await service.mails(email)).map((mail) => mail.subject)).toContain(SUBJECT);
    }

    const report = await call('GET', `/issues/${issue.id}/report`, read);
    expect(report.status, report.text).toBe(200);
    expect(report.json).toMatchObject({ newsletter_id: issue.id, status: 'sent' });
    // [engagement.report] Opens and clicks come with it over HTTP as in `newsletters report`:
    // nobody has opened yet, and the hours the console charts are there, empty.
    expect((report.json as { engagement?: unknown }).engagement).toMatchObject({
      opened: 0,
      clicked: 0,
      hours: [],
    });
    const csv = await call('GET', `/issues/${issue.id}/report`, read, undefined, {
      Accept: 'text/csv',
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('email,subscriber_id,outcome,at,message_id');
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',')[0])
        .sort(),
    ).toEqual(READERS);
    expect(lines.slice(1).every((line) => line.split(',')[2] === 'sent')).toBe(true);

    // Sending it again is refused; to the new, it goes (nobody new: it ends at once or soon).
    expect((await call('POST', `/issues/${issue.id}/send`, write)).status).toBe(409);
    const copy = await call('POST', `/issues/${issue.id}/copy`, write);
    expect(copy.status, copy.text).toBe(201);
    expect(copy.json).toMatchObject({ subject: SUBJECT, status: 'draft', lists: [listId] });
  });

  it('[campaign.quota] a send that does not fit in the daily quota is a 409 until accept_quota', async () => {
    const list = (await call('POST', '/lists', write, { name: 'Quota readers' })).json as {
      id: number;
    };
    for (const email of ['quota-a@example.com', 'quota-b@example.com']) {
      const added = await call('POST', '/subscribers', write, {
        email,
        status: 'confirmed',
        lists: [list.id],
      });
      expect(added.status, added.text).toBe(201);
    }
    const created = (
      await call('POST', '/issues', write, {
        subject: 'Over the quota',
        html: '<p>Hi {name}</p><p><a href="{unsubscription_url}">Leave</a></p>',
        lists: [list.id],
      })
    ).json as { id: number };
    const { max24HourSend, sentLast24Hours } = service.ses.sendQuota();
    // No room left today: the function asks SES (GetSendQuota) and counts the recipients.
    service.ses.setQuota({ max24HourSend: sentLast24Hours });
    try {
      const refused = await call('POST', `/issues/${created.id}/send`, write, {});
      expect(refused.status, refused.text).toBe(409);
      expect(refused.json).toMatchObject({ code: 'over_quota' });
      expect((refused.json as { message: string }).message).toMatch(
        new RegExp(
          `^Newsletter ${created.id} goes to 2; this account can send 0 more in the next 24 hours;.* Send it with accept_quota to go on\\.$`,
        ),
      );
      const unsent = await call('GET', `/newsletters/${created.id}`, read);
      expect(unsent.json).toMatchObject({ status: 'draft' });
      expect(
        (await call('POST', `/issues/${created.id}/send`, write, { accept_quota: 'maybe' })).status,
      ).toBe(400);

      const accepted = await call('POST', `/issues/${created.id}/send`, write, {
        accept_quota: true,
      });
      expect(accepted.status, accepted.text).toBe(200);
      expect(accepted.json).toMatchObject({ id: created.id, status: 'sending' });
    } finally {
      service.ses.setQuota({ max24HourSend });
    }
    await service.stack.settled();
  });

  it('[v2.issues] pause, resume and cancel a send; unknown issues are the original 404', async () => {
    const created = (
      await call('POST', '/issues', write, {
        subject: 'To be cancelled',
        html: '<p>Hi {name}</p><p><a href="{unsubscription_url}">Leave</a></p>',
        lists: [4],
      })
    ).json as { id: number };
    expect((await call('POST', `/issues/${created.id}/send`, write)).status).toBe(200);
    const paused = await call('POST', `/issues/${created.id}/pause`, write);
    // A small send may have ended before the pause arrives: then it is a 409, as the CLI's.
    expect([200, 409]).toContain(paused.status);
    if (paused.status === 200) {
      expect(paused.json).toMatchObject({ status: 'paused' });
      expect((await call('POST', `/issues/${created.id}/resume`, write)).status).toBe(200);
      const cancelled = await call('POST', `/issues/${created.id}/cancel`, write);
      expect([200, 409]).toContain(cancelled.status);
    }
    for (const [method, path] of [
      ['PUT', '/issues/987654'],
      ['POST', '/issues/987654/send'],
      ['GET', '/issues/987654/report'],
      ['POST', '/issues/abc/copy'],
    ] as const) {
      const answer = await call(
        method,
        path,
        method === 'GET' ? read : write,
        method === 'PUT' ? { subject: 'x' } : undefined,
      );
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect((answer.json as { code: string }).code).toBe('-1');
    }
  });
});

describe('scheduling an issue over HTTP', () => {
  const scheduler = () => {
    const local = service.stack.cloud.scheduler;
    if (!local) throw new Error('the stack has no Scheduler');
    return local;
  };
  /** A whole second an hour from now, as the Scheduler's at() counts them. */
  const inAnHour = (): string => `${new Date(Date.now() + 3_600_000).toISOString().slice(0, 19)}Z`;

  async function draftTo(readers: readonly string[], subject: string): Promise<number> {
    const list = (await call('POST', '/lists', write, { name: `${subject} readers` })).json as {
      id: number;
    };
    for (const email of readers) {
      const added = await call('POST', '/subscribers', write, {
        email,
        status: 'confirmed',
        lists: [list.id],
      });
      expect(added.status, added.text).toBe(201);
    }
    const created = await call('POST', '/issues', write, {
      subject,
      html: '<p>Hi {name}</p><p><a href="{unsubscription_url}">Leave</a></p>',
      lists: [list.id],
    });
    expect(created.status, created.text).toBe(201);
    return (created.json as { id: number }).id;
  }

  it('[v2.schedule] a write key schedules a draft; the schedule fires at its time and the issue is sent', async () => {
    const subject = 'Scheduled over HTTP';
    const readers = ['at-a@example.com', 'at-b@example.com'];
    const id = await draftTo(readers, subject);
    const at = inAnHour();

    const scheduled = await call('POST', `/issues/${id}/schedule`, write, { at });
    expect(scheduled.status, scheduled.text).toBe(200);
    expect(scheduled.json).toMatchObject({ id, status: 'scheduled', scheduled_at: at });
    expect(scheduler().schedules()).toMatchObject([
      { at: new Date(at), deleteAfterCompletion: true },
    ]);
    // The function created it with its own role, checked as AWS checks it: the schedule in the
    // stack's group, and the scheduler role passed to the Scheduler only.
    const created = service.stack.cloud.endpoint.calls.filter(
      (each) => each.service === 'scheduler' && each.operation === 'CreateSchedule',
    );
    expect(created.map((each) => [each.allowed, each.authorizations.map((a) => a.action)])).toEqual(
      [[true, ['scheduler:CreateSchedule', 'iam:PassRole']]],
    );
    expect((await call('GET', `/newsletters/${id}`, read)).json).toMatchObject({
      status: 'scheduled',
    });

    clock.now = new Date(at);
    const fired = await scheduler().fireDue();
    await service.stack.settled();
    expect(fired).toMatchObject([{ denied: false, result: { ok: true } }]);
    expect(scheduler().schedules()).toEqual([]);
    let watched: { status?: string; sent?: number } = {};
    await vi.waitUntil(
      async () => {
        watched = (await call('GET', `/newsletters/${id}`, read)).json as typeof watched;
        return watched.status === 'sent';
      },
      { timeout: 90_000, interval: 500 },
    );
    expect(watched).toMatchObject({ status: 'sent', sent: 2 });
    for (const email of readers)
      expect((await service.mails(email)).map((mail) => mail.subject)).toContain(subject);
  });

  it('[v2.schedule] DELETE takes a scheduled issue back to draft and its schedule away; nothing is sent', async () => {
    const subject = 'Scheduled, then taken back over HTTP';
    const id = await draftTo(['back-a@example.com'], subject);
    const at = inAnHour();
    expect((await call('POST', `/issues/${id}/schedule`, write, { at })).status).toBe(200);

    const unscheduled = await call('DELETE', `/issues/${id}/schedule`, write);
    expect(unscheduled.status, unscheduled.text).toBe(200);
    expect(unscheduled.json).toMatchObject({ id, status: 'draft' });
    expect(unscheduled.json).not.toHaveProperty('scheduled_at');
    expect(scheduler().schedules()).toEqual([]);
    clock.now = new Date(Date.parse(at) + 60_000);
    expect(await scheduler().fireDue()).toEqual([]);
    expect(await service.mails('back-a@example.com')).toEqual([]);

    // Not scheduled any more: a second DELETE is the lifecycle's 409.
    const again = await call('DELETE', `/issues/${id}/schedule`, write);
    expect(again.status, again.text).toBe(409);
    expect(again.json).toMatchObject({ code: 'invalid_state' });
  });

  it('[v2.schedule] a read key, no key, bad times and unknown issues are refused with 4xx; nothing is scheduled', async () => {
    const id = await draftTo([], 'Never scheduled');
    const before = scheduler().schedules().length;
    const refused = (response: ApiResponse, status: number, code: string) => {
      expect(response.status, response.text).toBe(status);
      expect((response.json as { code: string }).code).toBe(code);
    };
    refused(
      await call('POST', `/issues/${id}/schedule`, read, { at: inAnHour() }),
      403,
      'forbidden',
    );
    refused(await call('DELETE', `/issues/${id}/schedule`, read), 403, 'forbidden');
    refused(
      await call('POST', `/issues/${id}/schedule`, '', { at: inAnHour() }),
      401,
      'rest_forbidden',
    );
    const past = `${new Date(Date.now() - 60_000).toISOString().slice(0, 19)}Z`;
    for (const [at, code, message] of [
      [past, 'invalid_parameter', /^at must be in the future/],
      ['2026-12-01T09:00:00', 'invalid_parameter', /ISO 8601 time with a zone/],
      ['tomorrow at nine', 'invalid_parameter', /ISO 8601 time with a zone/],
      ['2026-13-45T25:61:00Z', 'invalid_parameter', /ISO 8601 time with a zone/],
      [
        `${new Date(Date.now() + 400 * 86_400_000).toISOString().slice(0, 19)}Z`,
        'invalid_parameter',
        /within a year/,
      ],
      [undefined, 'missing_parameter', /at is required/],
    ] as const) {
      const answer = await call(
        'POST',
        `/issues/${id}/schedule`,
        write,
        at === undefined ? {} : { at },
      );
      refused(answer, 400, code);
      expect((answer.json as { message: string }).message).toMatch(message);
    }
    refused(await call('POST', '/issues/987654/schedule', write, { at: inAnHour() }), 404, '-1');
    refused(await call('DELETE', '/issues/987654/schedule', write), 404, '-1');
    const wrongMethod = await call('PUT', `/issues/${id}/schedule`, write, { at: inAnHour() });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST, DELETE');
    expect(scheduler().schedules()).toHaveLength(before);
    expect((await call('GET', `/newsletters/${id}`, read)).json).toMatchObject({ status: 'draft' });
  });
});

describe('a report of many rows over HTTP', () => {
  /**
   * `count` confirmed subscribers written as an import writes them, and the issue's record of
   * each one's turn, sent, as a worker writes it when the turn ends: the ids, in order.
   */
  async function seedRecipients(issue: number, count: number): Promise<number[]> {
    const db = documentClient(service.stack.dynamo.endpoint);
    const table = service.stack.tableName;
    const first = await new DynamoStore(db, table).reserveIds('subscriber', count);
    const settings = parseSettings(JSON.stringify(BASELINE_SETTINGS));
    const ids = Array.from({ length: count }, (_, index) => first + index);
    const items = ids.map((id) =>
      toSubscriberItem({
        ...newSubscriberRecord(
          `many-${id}@example.com`,
          { name: '', lists: [3], profile: {} },
          'C',
          settings,
          new Date(),
          { preassigned: false },
        ),
        id,
        version: 1,
      }),
    );
    // Each recipient's record as a sent mail's recordOutcome leaves it.
    const at = new Date().toISOString();
    const records = ids.map((id) => ({
      ...keys.recipient(issue, id),
      subscriber_id: id,
      state: 'sent',
      at,
      run: 1,
      message_id: `msg-${id}`,
      link_expires_at: Math.floor(Date.now() / 1000) + 86_400,
      token_hashes: new Set(['a'.repeat(64)]),
    }));
    // In batches, several at once: the seeding is set-up, not what the test measures.
    const batches: Record<string, unknown>[][] = [];
    for (const all of [items, records])
      for (let start = 0; start < all.length; start += 25)
        batches.push(all.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })));
    const lane = async () => {
      for (let requests = batches.shift(); requests; requests = batches.shift()) {
        while (requests.length > 0) {
          const output = await db.send(
            new BatchWriteCommand({ RequestItems: { [table]: requests } }),
          );
          requests = (output.UnprocessedItems?.[table] ?? []) as Record<string, unknown>[];
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
    db.destroy();
    return ids;
  }

  // 6,500 recipients seeded, each subscriber counted from the stream: a few seconds alone, and
  // beyond two minutes in a whole suite's run on two cores; the verdict is on the calls made.
  it('[v2.report-csv] answers the CSV in parts of at most 5 pages of records, each read page by page, linked by Link rel="next"', async () => {
    const created = await call('POST', '/issues', write, {
      subject: 'Many rows',
      html: '<p>Hi {name}</p><p><a href="{unsubscription_url}">Leave</a></p>',
      lists: [3],
    });
    const issue = (created.json as { id: number }).id;
    const ids = await seedRecipients(issue, 6_500);
    const reportFunction = service.stack.cloud.stack
      .functions()
      .find((fn) => fn.entry === 'functions/v2-issue-report.ts');
    if (!reportFunction) throw new Error('no report function');
    /** A part, and the report function's DynamoDB reads while answering it. */
    const part = async (url: string) => {
      const before = service.stack.cloud.endpoint.calls.length;
      const response = await service.request('GET', url, { headers: { Accept: 'text/csv' } });
      const calls = service.stack.cloud.endpoint.calls
        .slice(before)
        .filter((each) => each.caller === reportFunction.functionName)
        .map((each) => each.summary);
      expect(response.status, response.text).toBe(200);
      return {
        response,
        rows: response.text.split('\n').filter(Boolean),
        // One Query per shard of the issue's records (8) makes a page of up to 1,000.
        recordQueries: calls.filter((each) => each === 'Query table').length,
        addressReads: calls.filter((each) => each === 'Query recent').length,
        link: /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1],
      };
    };

    const parts = [await part(`${v2}/issues/${issue}/report?${read}`)];
    // The client follows each link with its credentials, as it sent the first request.
    for (let link = parts[0]?.link; link; link = parts.at(-1)?.link)
      parts.push(await part(`${new URL(v2).origin}${link}&${read}`));

    const [first, ...rest] = parts;
    if (!first) throw new Error('no part');
    expect(first.response.headers.get('content-type')).toBe(
      'text/csv; charset=utf-8; header=present',
    );
    expect(first.rows[0]).toBe('email,subscriber_id,outcome,at,message_id');
    expect(rest.length).toBeGreaterThan(0);
    for (const each of rest)
      expect(each.response.headers.get('content-type')).toBe(
        'text/csv; charset=utf-8; header=absent',
      );
    // Each part read at most 5 pages, one at a time: at most 5 × 8 record Queries and one
    // ranged read of addresses per page (the ids are dense: one Query of each partition of
    // the subscriber index), never the whole report.
    for (const each of parts) {
      expect(each.recordQueries).toBeLessThanOrEqual(40);
      expect(each.recordQueries % 8).toBe(0);
      expect(each.addressReads).toBe((each.recordQueries / 8) * SUBSCRIBER_INDEX_PARTITIONS.length);
      expect(each.rows.length - (each === first ? 1 : 0)).toBeLessThanOrEqual(5_000);
    }
    expect(first.recordQueries).toBe(40);
    expect(first.rows.length - 1).toBeGreaterThan(4_900);
    // Each link starts after the last row of its part.
    for (const each of parts.slice(0, -1))
      expect(each.link).toBe(
        `${new URL(v2).pathname}/issues/${issue}/report?after=${each.rows.at(-1)?.split(',')[1]}`,
      );

    // Together, the file the CLI writes: every recipient once, in id order, with its address.
    const rows = [...first.rows.slice(1), ...rest.flatMap((each) => each.rows)];
    expect(rows.map((row) => Number(row.split(',')[1]))).toEqual(ids);
    expect(rows.every((row, index) => row.startsWith(`many-${ids[index]}@example.com,`))).toBe(
      true,
    );
    expect(rows.every((row) => row.split(',')[2] === 'sent')).toBe(true);

    const badCursor = await call('GET', `/issues/${issue}/report`, `${read}&after=x`, undefined, {
      Accept: 'text/csv',
    });
    expect(badCursor.status, badCursor.text).toBe(400);
    expect(badCursor.json).toMatchObject({ code: 'invalid_parameter' });
  }, 300_000);
});
