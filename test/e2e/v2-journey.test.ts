/**
 * An issue's life over HTTP only, through API v2 and our extension ([v2.issues]): subscribers
 * added, an issue created, edited, tested, sent, watched to `sent`, reported as JSON and CSV,
 * copied; the lifecycle's refusals and a read key's 403 on the way. The synthesized engine (the
 * planner and sender functions with their roles, their queues) mails through the local SES.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { documentClient } from '../support/local-dynamo.ts';
import { type ApiResponse, type LocalService, startLocalService } from './support/local-service.ts';

vi.setConfig({ testTimeout: 120_000 });

let service: LocalService;
let v2: string;
let write: string;
let read: string;

beforeAll(async () => {
  service = await startLocalService();
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
