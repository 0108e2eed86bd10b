/**
 * The routes the web console needs beyond the original's v2, over raw HTTP against the local
 * stack (what `cdk synth` built, each function with its own role): an issue's audience, the
 * account, the settings, a subscriber's consent and issues, CSV import and export, and the
 * report's opens and clicks per hour. Good answers, and bad input as a 4xx.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { freshAddresses } from '../support/fixtures.ts';
import { documentClient } from '../support/local-dynamo.ts';
import { campaignOperator } from './support/campaign-operator.ts';
import { type ApiResponse, type LocalService, startLocalService } from './support/local-service.ts';

let service: LocalService;
let v2: string;

interface Credentials {
  readonly key: string;
  readonly secret: string;
}
let reader: Credentials;
let writer: Credentials;

beforeAll(async () => {
  service = await startLocalService();
  v2 = service.apiRoot.replace(/\/v1$/, '/v2');
  const keys = new DynamoClientKeyStore(
    documentClient(service.stack.dynamo.endpoint),
    service.stack.tableName,
  );
  const make = async (permission: 'read' | 'write') => {
    const created = await createClientKey({ keys, now: () => new Date() }, permission, permission);
    if (isNewsletterError(created)) throw new Error(created.message);
    return { key: created.record.client_key, secret: created.clientSecret };
  };
  reader = await make('read');
  writer = await make('write');
});

afterAll(async () => {
  await service?.stop();
});

afterEach(() => {
  service.resetSettings();
});

const address = freshAddresses();

/** A v2 call with HTTP Basic credentials (none: anonymous). */
function call(
  method: string,
  path: string,
  options: {
    credentials?: Credentials;
    body?: unknown;
    text?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<ApiResponse> {
  const { credentials } = options;
  const headers: Record<string, string> = {
    ...(credentials
      ? {
          Authorization: `Basic ${Buffer.from(`${credentials.key}:${credentials.secret}`).toString('base64')}`,
        }
      : {}),
    ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    ...options.headers,
  };
  const body =
    options.text ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return service.request(method, `${v2}${path}`, {
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

function expectError(response: ApiResponse, status: number, code: string) {
  expect(response.status, response.text).toBe(status);
  const body = response.json as { code: string; data: { status: number } };
  expect(body.code, response.text).toBe(code);
  expect(body.data.status).toBe(status);
}

/** A subscriber added by a trusted caller (v1's `subscribers/add`). */
async function add(email: string, lists: readonly number[], status: 'C' | 'S' = 'C') {
  const answer = await service.post('/subscribers/add', {
    api_key: service.apiKey,
    email,
    lists,
    status,
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as { id: number };
}

const ISSUE_HTML = '<p>Hi {name}</p><p><a href="{unsubscription_url}">Leave</a></p>';

async function createIssue(subject: string, lists: readonly number[]): Promise<number> {
  const created = await call('POST', '/issues', {
    credentials: writer,
    body: { subject, html: ISSUE_HTML, lists },
  });
  expect(created.status, created.text).toBe(201);
  return (created.json as { id: number }).id;
}

describe('GET /issues/{id}/audience', () => {
  it('[v2.audience] counts the confirmed members of its lists once each, and fits the quota as send decides', async () => {
    // Lists 1 and 3 are the issue's: three confirmed members (one on both), one unconfirmed,
    // one confirmed on another list.
    for (const [name, lists, status] of [
      ['aud-a', [1], 'C'],
      ['aud-b', [1, 3], 'C'],
      ['aud-c', [3], 'C'],
      ['aud-d', [3], 'S'],
      ['aud-e', [2], 'C'],
    ] as const)
      await add(address(name), lists, status);
    const id = await createIssue('Audience', [1, 3]);
    // Everyone else on lists 1 and 3 counts too: other tests of this file add none there.
    const audience = await call('GET', `/issues/${id}/audience`, { credentials: reader });
    expect(audience.status, audience.text).toBe(200);
    const body = audience.json as {
      recipients: number;
      quota: { room: number; max_24_hour_send: number; sent_last_24_hours: number };
      fits: boolean;
      warning: string | null;
      new_only: boolean;
      newsletter_id: number;
    };
    expect(body).toMatchObject({ newsletter_id: id, new_only: false, recipients: 3, fits: true });
    expect(body.warning).toBeNull();
    const quota = service.ses.sendQuota();
    expect(body.quota).toEqual({
      max_24_hour_send: quota.max24HourSend,
      sent_last_24_hours: quota.sentLast24Hours,
      room: quota.max24HourSend - quota.sentLast24Hours,
    });

    // Room for two: it does not fit, and the warning is the sentence send refuses with.
    const { max24HourSend } = quota;
    service.ses.setQuota({ max24HourSend: quota.sentLast24Hours + 2 });
    try {
      const tight = (await call('GET', `/issues/${id}/audience`, { credentials: reader }))
        .json as typeof body;
      expect(tight).toMatchObject({ recipients: 3, fits: false });
      expect(tight.quota.room).toBe(2);
      const refused = await call('POST', `/issues/${id}/send`, { credentials: writer, body: {} });
      expectError(refused, 409, 'over_quota');
      expect((refused.json as { message: string }).message).toBe(
        `${tight.warning} Send it with accept_quota to go on.`,
      );
    } finally {
      service.ses.setQuota({ max24HourSend });
    }
  });

  it('[v2.audience] new_only counts only those the issue has not reached; a newcomer counts', async () => {
    const first = address('aud-new-1');
    await add(first, [4]);
    const id = await createIssue('Audience new', [4]);
    const sent = await call('POST', `/issues/${id}/send`, { credentials: writer, body: {} });
    expect(sent.status, sent.text).toBe(200);
    const settled = async () => {
      for (let tries = 0; tries < 400; tries++) {
        const issue = (await call('GET', `/newsletters/${id}`, { credentials: reader })).json as {
          status: string;
        };
        if (issue.status === 'sent') return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the send did not end');
    };
    await settled();
    const all = (await call('GET', `/issues/${id}/audience`, { credentials: reader })).json as {
      recipients: number;
    };
    const none = (
      await call('GET', `/issues/${id}/audience?new_only=true`, { credentials: reader })
    ).json as { recipients: number; new_only: boolean };
    expect(none).toMatchObject({ new_only: true, recipients: 0 });
    await add(address('aud-new-2'), [4]);
    const one = (await call('GET', `/issues/${id}/audience?new_only=1`, { credentials: reader }))
      .json as { recipients: number };
    expect(one.recipients).toBe(1);
    expect(
      ((await call('GET', `/issues/${id}/audience`, { credentials: reader })).json as typeof all)
        .recipients,
    ).toBe(all.recipients + 1);
  });

  it('[v2.audience] SES out of reach: the count, no quota, and the sentence a send goes on with', async () => {
    const id = await createIssue('Audience no SES', [1]);
    await service.stopSes();
    try {
      const answer = await call('GET', `/issues/${id}/audience`, { credentials: reader });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json).toMatchObject({ quota: null, fits: null });
      expect((answer.json as { warning: string }).warning).toMatch(/could not be read/);
    } finally {
      await service.restartSes();
    }
  });

  it('[v2.audience] bad input is a 4xx: unknown or malformed id 404, a bad flag 400, no key 401', async () => {
    const id = await createIssue('Audience bad', [1]);
    expectError(await call('GET', '/issues/999999/audience', { credentials: reader }), 404, '-1');
    for (const bad of ['abc', '0', '-1', '1e3', '%00', 'x'.repeat(300)])
      expectError(await call('GET', `/issues/${bad}/audience`, { credentials: reader }), 404, '-1');
    expectError(
      await call('GET', `/issues/${id}/audience?new_only=maybe`, { credentials: reader }),
      400,
      'invalid_parameter',
    );
    expectError(await call('GET', `/issues/${id}/audience`), 401, 'rest_forbidden');
    expectError(
      await call('POST', `/issues/${id}/audience`, { credentials: writer, body: {} }),
      405,
      'method_not_allowed',
    );
  });
});

describe('GET /account', () => {
  interface Account {
    max_24_hour_send: number;
    sent_last_24_hours: number;
    max_send_rate: number;
    statistics: {
      since: string;
      delivery_attempts: number;
      bounces: number;
      complaints: number;
      rejects: number;
    };
    bounce_rate: { rate: number | null; review_at: number; pause_at: number; state: string };
    complaint_rate: { rate: number | null; review_at: number; pause_at: number; state: string };
  }
  const account = async (): Promise<Account> => {
    const answer = await call('GET', '/account', { credentials: reader });
    expect(answer.status, answer.text).toBe(200);
    return answer.json as Account;
  };

  it("[v2.account] SES's quota and rate, and bounces and complaints of two weeks against SES's levels", async () => {
    const before = await account();
    const quota = service.ses.sendQuota();
    expect(before).toMatchObject({
      max_24_hour_send: quota.max24HourSend,
      max_send_rate: quota.maxSendRate,
      bounce_rate: { review_at: 0.05, pause_at: 0.1 },
      complaint_rate: { review_at: 0.001, pause_at: 0.005 },
    });
    expect(Date.now() - Date.parse(before.statistics.since)).toBeGreaterThan(13.9 * 86_400_000);
    // A test send to a bounce, a complaint and an inbox: SES counts three attempts.
    const id = await createIssue('Account', [1]);
    const to = [
      'bounce@simulator.amazonses.com',
      'complaint@simulator.amazonses.com',
      address('account'),
    ];
    const tested = await call('POST', `/issues/${id}/test`, { credentials: writer, body: { to } });
    expect(tested.status, tested.text).toBe(200);
    let after = before;
    for (let tries = 0; tries < 200; tries++) {
      after = await account();
      if (after.statistics.delivery_attempts >= before.statistics.delivery_attempts + 3) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(after.statistics).toMatchObject({
      delivery_attempts: before.statistics.delivery_attempts + 3,
      bounces: before.statistics.bounces + 1,
      complaints: before.statistics.complaints + 1,
      rejects: 0,
    });
    expect(after.sent_last_24_hours).toBe(before.sent_last_24_hours + 3);
    const { delivery_attempts: attempts, bounces, complaints } = after.statistics;
    expect(after.bounce_rate.rate).toBeCloseTo(bounces / attempts, 10);
    expect(after.complaint_rate.rate).toBeCloseTo(complaints / attempts, 10);
    // One complaint in a few dozen mails is far past 0.5%.
    expect(after.complaint_rate.state).toBe('pause');
  });

  it('[v2.account] no key: 401; a write method: 405; SES out of reach: 503', async () => {
    expectError(await call('GET', '/account'), 401, 'rest_forbidden');
    expectError(
      await call('PUT', '/account', { credentials: writer, body: {} }),
      405,
      'method_not_allowed',
    );
    await service.stopSes();
    try {
      expectError(await call('GET', '/account', { credentials: reader }), 503, 'unavailable');
    } finally {
      await service.restartSes();
    }
  });
});

describe('GET|PUT /settings', () => {
  interface Shown {
    settings: Record<string, unknown> & { lists: { id: number; name: string }[] };
    version: number;
    problem: string | null;
  }
  const show = async (): Promise<Shown> => {
    const answer = await call('GET', '/settings', { credentials: reader });
    expect(answer.status, answer.text).toBe(200);
    return answer.json as Shown;
  };

  it('[v2.settings] GET answers the document as written and its version; PUT replaces it, read back', async () => {
    const shown = await show();
    expect(shown.problem).toBeNull();
    expect(shown.settings.lists.map((list) => list.id)).toEqual([1, 2, 3, 4]);
    // Written as the test stack wrote it: no defaults filled in (the document, not the parsed form).
    expect(shown.settings).not.toHaveProperty('mail_texts');
    const changed = {
      ...shown.settings,
      lists: [...shown.settings.lists, { id: 5, name: 'Console' }],
    };
    const put = await call('PUT', '/settings', {
      credentials: writer,
      body: { settings: changed, version: shown.version },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual({ version: shown.version + 1, tier: 'Standard' });
    const after = await show();
    expect(after).toEqual({ settings: changed, version: shown.version + 1, problem: null });
    // The functions see it: the new list is a list of v2's.
    const lists = await call('GET', '/lists?per_page=100', { credentials: reader });
    expect((lists.json as { id: number }[]).map((list) => list.id)).toContain(5);
  });

  it('[v2.settings] a document the functions refuse is a 400 naming the field, and nothing is written', async () => {
    const shown = await show();
    for (const [settings, field] of [
      [{ ...shown.settings, opt_in: 'sometimes' }, 'settings.opt_in'],
      [{ ...shown.settings, lists: [{ id: 'x', name: '' }] }, 'settings.lists.0'],
      [{ ...shown.settings, sender: { address: 'not an address' } }, 'settings.sender.address'],
      ['{"lists": [', 'not valid JSON'],
      [[1, 2], 'settings'],
      // Valid, and over what a parameter holds.
      [
        {
          ...shown.settings,
          lists: Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: 'x'.repeat(90) })),
        },
        '8192',
      ],
    ] as const) {
      const answer = await call('PUT', '/settings', { credentials: writer, body: { settings } });
      expectError(answer, 400, 'invalid_parameter');
      expect((answer.json as { message: string }).message).toContain(field);
    }
    expect((await show()).version).toBe(shown.version);
  });

  it('[v2.settings] a stale version is a 409; no settings a 400; a read key a 403; no key 401', async () => {
    const shown = await show();
    const stale = await call('PUT', '/settings', {
      credentials: writer,
      body: { settings: shown.settings, version: shown.version - 1 },
    });
    expectError(stale, 409, 'invalid_state');
    expectError(
      await call('PUT', '/settings', { credentials: writer, body: { version: shown.version } }),
      400,
      'missing_parameter',
    );
    for (const version of ['x', -1, 0, 1.5, '1e3'])
      expectError(
        await call('PUT', '/settings', {
          credentials: writer,
          body: { settings: shown.settings, version },
        }),
        400,
        'invalid_parameter',
      );
    expectError(
      await call('PUT', '/settings', { credentials: reader, body: { settings: shown.settings } }),
      403,
      'forbidden',
    );
    expectError(await call('GET', '/settings'), 401, 'rest_forbidden');
    expectError(
      await call('PUT', '/settings', {
        credentials: writer,
        text: '{"settings":',
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
      'malformed_body',
    );
    expect((await show()).version).toBe(shown.version);
  });
});

/** Waits until an issue has finished sending. */
async function untilSent(id: number): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    const issue = (await call('GET', `/newsletters/${id}`, { credentials: reader })).json as {
      status: string;
    };
    if (issue.status === 'sent') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`issue ${id} did not finish sending`);
}

describe('a subscriber: consent and issues', () => {
  it('[v2.consent] GET /subscribers/{id} shows the consent evidence: channel, time, address, agent', async () => {
    const email = address('consent');
    const created = await call('POST', '/subscribers', {
      credentials: writer,
      body: { email },
      headers: { 'User-Agent': 'console-test/1.0' },
    });
    expect(created.status, created.text).toBe(201);
    const { id } = created.json as { id: number };
    // The write's answer is the original's shape; the read adds the evidence.
    expect(created.json).not.toHaveProperty('consent');
    for (const reference of [String(id), encodeURIComponent(email)]) {
      const answer = await call('GET', `/subscribers/${reference}`, { credentials: reader });
      expect(answer.status, answer.text).toBe(200);
      const { consent } = answer.json as {
        consent: { channel: string; subscribed: { at: string; ip?: string; user_agent?: string } };
      };
      expect(consent.channel).toBe('api');
      expect(Date.now() - Date.parse(consent.subscribed.at)).toBeLessThan(60_000);
      expect(consent.subscribed.user_agent).toBe('console-test/1.0');
      expect(consent.subscribed.ip).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    }
  });

  it('[v2.subscriber-issues] the issues a subscriber got, newest first, with the outcome; none it did not', async () => {
    const email = address('history');
    const { id: subscriberId } = await add(email, [2]);
    const first = await createIssue('History one', [2]);
    expect(
      (await call('POST', `/issues/${first}/send`, { credentials: writer, body: {} })).status,
    ).toBe(200);
    await untilSent(first);
    // Not theirs: another list, and a draft of theirs never sent.
    const other = await createIssue('History other list', [4]);
    await call('POST', `/issues/${other}/send`, { credentials: writer, body: {} });
    await untilSent(other);
    await createIssue('History draft', [2]);
    const second = await createIssue('History two', [2]);
    await call('POST', `/issues/${second}/send`, { credentials: writer, body: {} });
    await untilSent(second);

    const answer = await call('GET', `/subscribers/${subscriberId}/issues`, {
      credentials: reader,
    });
    expect(answer.status, answer.text).toBe(200);
    const issues = answer.json as { id: number; subject: string; outcome: string; at: string }[];
    expect(issues.map((issue) => [issue.id, issue.subject, issue.outcome])).toEqual([
      [second, 'History two', 'sent'],
      [first, 'History one', 'sent'],
    ]);
    for (const issue of issues) expect(Date.now() - Date.parse(issue.at)).toBeLessThan(120_000);
    // Fewer than a page of issues: no next page.
    expect(answer.headers.get('link')).toBeNull();
    // By address too; `before` reads below an issue id.
    const older = await call(
      'GET',
      `/subscribers/${encodeURIComponent(email)}/issues?before=${second}`,
      { credentials: reader },
    );
    expect((older.json as { id: number }[]).map((issue) => issue.id)).toEqual([first]);
  });

  it('[v2.subscriber-issues] bad input is a 4xx: unknown subscriber 404, a bad before 400, no key 401', async () => {
    const { id } = await add(address('history-bad'), [2]);
    expectError(
      await call('GET', '/subscribers/999999999/issues', { credentials: reader }),
      404,
      '-1',
    );
    expectError(
      await call('GET', '/subscribers/nobody%40example.com/issues', { credentials: reader }),
      404,
      '-1',
    );
    for (const before of ['abc', '-1', '0', '1.5', '9'.repeat(20)])
      expectError(
        await call('GET', `/subscribers/${id}/issues?before=${before}`, { credentials: reader }),
        400,
        'invalid_parameter',
      );
    expectError(await call('GET', `/subscribers/${id}/issues`), 401, 'rest_forbidden');
    const none = await call('GET', `/subscribers/${id}/issues`, { credentials: reader });
    expect(none.status).toBe(200);
    expect(none.json).toEqual([]);
  });
});

describe('POST /subscribers/import', () => {
  interface Imported {
    imported: number;
    updated: number;
    existing: number;
    rejected: { line: number; row: string; email: string; code: string; reason: string }[];
  }
  const importPart = (text: string, query = '', credentials = writer) =>
    call('POST', `/subscribers/import${query}`, {
      credentials,
      text,
      headers: { 'Content-Type': 'text/csv; charset=utf-8' },
    });

  it('[v2.subscribers-import] imports a part as the CLI imports a file: new rows, existing ones left alone, bad rows reported by line', async () => {
    const kept = address('import-kept');
    await add(kept, [2], 'S');
    const fresh = address('import-new');
    const quoted = address('import-quoted');
    const badStatus = address('import-status');
    const part = [
      'email,name,lists,status,profile_city',
      `${fresh},Nia,2 4,C,'=Rome`,
      `${kept},Changed,1,C,`,
      'not-an-address,Bad,2,C,',
      '',
      `${quoted},"Ng, Jo",2,,`,
      `${fresh},Again,2,C,`,
      'short@example.com,Only two',
      `${badStatus},X,2,Z,`,
    ].join('\r\n');
    const answer = await importPart(part);
    expect(answer.status, answer.text).toBe(200);
    const result = answer.json as Imported;
    expect(result).toMatchObject({ imported: 2, updated: 0, existing: 2 });
    expect(result.rejected.map((row) => [row.line, row.email, row.code])).toEqual([
      [3, kept, 'email_exists'],
      [4, 'not-an-address', 'invalid_email'],
      [7, fresh, 'email_exists'],
      [8, 'short@example.com', 'invalid_row'],
      [9, badStatus, 'invalid_parameter'],
    ]);
    expect(result.rejected[0]?.row).toBe(`${kept},Changed,1,C,`);

    // Stored as the CLI stores an import: the row's lists only, the status cell (or C), the
    // formula escape taken off, the consent evidence `import`; the existing one unchanged.
    const stored = async (email: string) =>
      (await call('GET', `/subscribers/${encodeURIComponent(email)}`, { credentials: reader }))
        .json as {
        first_name: string;
        status: string;
        lists: { id: number }[];
        extra_fields: { id: string; value: string }[];
        consent: { channel: string };
      };
    const nia = await stored(fresh);
    expect(nia).toMatchObject({
      first_name: 'Nia',
      status: 'confirmed',
      consent: { channel: 'import' },
    });
    expect(nia.lists.map((list) => list.id)).toEqual([2, 4]);
    expect(nia.extra_fields).toEqual([{ id: 'city', value: '=Rome' }]);
    expect(await stored(quoted)).toMatchObject({ first_name: 'Ng, Jo', status: 'confirmed' });
    expect(await stored(kept)).toMatchObject({ first_name: '', status: 'not_confirmed' });

    // status=S for rows without a status cell, as --status S.
    const pending = address('import-pending');
    const second = await importPart(`email,status\n${pending},\n`, '?status=S');
    expect((second.json as Imported).imported).toBe(1);
    expect((await stored(pending)).status).toBe('not_confirmed');
  });

  it('[v2.subscribers-import] a bad part is a 4xx and writes nothing: header, broken CSV, too many rows, wrong type', async () => {
    const never = address('import-never');
    for (const [text, status, code] of [
      [`name,lists\nNo Address,2\n`, 400, 'invalid_parameter'],
      [`email,profile_shoe\n${never},42\n`, 400, 'invalid_parameter'],
      [`email,email\n${never},${never}\n`, 400, 'invalid_parameter'],
      [`email,name\n"${never},unclosed\n`, 400, 'invalid_parameter'],
      ['', 400, 'missing_parameter'],
      [
        ['email', ...Array.from({ length: 1_001 }, (_, i) => `bulk${i}-${never}`)].join('\n'),
        400,
        'body_too_large',
      ],
      [`email\n${'x'.repeat(1_100_000)}@example.com\n`, 400, 'body_too_large'],
    ] as const) {
      expectError(await importPart(text), status, code);
    }
    expectError(await importPart(`email\n${never}\n`, '?status=U'), 400, 'invalid_parameter');
    expectError(
      await call('POST', '/subscribers/import', { credentials: writer, body: { email: never } }),
      400,
      'malformed_body',
    );
    expectError(await importPart(`email\n${never}\n`, '', reader), 403, 'forbidden');
    expectError(
      await call('POST', '/subscribers/import', {
        text: `email\n${never}\n`,
        headers: { 'Content-Type': 'text/csv' },
      }),
      401,
      'rest_forbidden',
    );
    expectError(
      await call('GET', `/subscribers/${encodeURIComponent(never)}`, { credentials: reader }),
      404,
      '-1',
    );
  });

  it('[import.preview] preview=true with another source answers the mapping and writes nothing; the import then keeps the unsubscribed unsubscribed', async () => {
    const left = address('import-mc-left');
    const part = [
      '"Email Address","First Name","Last Name","MEMBER_RATING","UNSUB_TIME","UNSUB_REASON","LEID"',
      `"${left}","Lea","Ving","2","2024-03-01 08:00:00","NORMAL","123"`,
    ].join('\r\n');
    const preview = await importPart(part, '?source=mailchimp&preview=true');
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json).toMatchObject({
      preview: {
        source: 'mailchimp',
        rows: 1,
        statuses: { U: 1 },
        refused: 0,
        status_rule: 'every row U: the file has UNSUB_TIME',
      },
    });
    expectError(
      await call('GET', `/subscribers/${encodeURIComponent(left)}`, { credentials: reader }),
      404,
      '-1',
    );
    // [import.sources] The import itself, asked for confirmed rows, still stores U.
    const written = await importPart(part, '?source=mailchimp&status=C&lists=2');
    expect(written.json).toMatchObject({ imported: 1, rejected: [] });
    const stored = await call('GET', `/subscribers/${encodeURIComponent(left)}`, {
      credentials: reader,
    });
    expect(stored.json).toMatchObject({
      first_name: 'Lea',
      last_name: 'Ving',
      status: 'unsubscribed',
      lists: [{ id: 2 }],
    });
    expectError(await importPart(part, '?source=hubspot'), 400, 'invalid_parameter');
  });
});

describe('GET /subscribers as CSV', () => {
  it('[v2.subscribers-csv] Accept: text/csv answers the file `subscribers export` writes, and an import of it reads back', async () => {
    await add(address('export'), [2, 4]);
    const answer = await call('GET', '/subscribers?per_page=5', {
      credentials: reader,
      headers: { Accept: 'text/csv' },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(answer.headers.get('content-disposition')).toBe(
      'attachment; filename="subscribers.csv"',
    );
    // Fewer than a part's 5,000 rows: one part, no next (paging parameters do not cut it).
    expect(answer.headers.get('link')).toBeNull();
    const operator = await campaignOperator(service);
    try {
      expect(answer.text).toBe(await operator.cliOk('subscribers', 'export'));
    } finally {
      await operator.close();
    }
    // The export is what the import reads: every row of it exists already, none is refused.
    const reimport = await call('POST', '/subscribers/import', {
      credentials: writer,
      text: answer.text,
      headers: { 'Content-Type': 'text/csv' },
    });
    const rows = answer.text.trim().split('\n').length - 1;
    expect(reimport.json).toMatchObject({ imported: 0, existing: rows });
    expect(
      (reimport.json as { rejected: { code: string }[] }).rejected.every(
        (row) => row.code === 'email_exists',
      ),
    ).toBe(true);
    // A later part: after the last id, no header, an empty tail.
    const ids = answer.text
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => Number(line.split(',')[0]));
    const tail = await call('GET', `/subscribers?after=${Math.max(...ids)}`, {
      credentials: reader,
      headers: { Accept: 'text/csv' },
    });
    expect(tail.status).toBe(200);
    expect(tail.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=absent');
    expect(tail.text).toBe('');
    // JSON still by default.
    expect(
      (await call('GET', '/subscribers', { credentials: reader })).headers.get('content-type'),
    ).toMatch(/^application\/json/);
  });

  it('[v2.subscribers-csv] a filter or a bad after is a 400; no key 401', async () => {
    for (const query of ['status=confirmed', 'list=2', 'search=a', 'after=x', 'after=-1'])
      expectError(
        await call('GET', `/subscribers?${query}`, {
          credentials: reader,
          headers: { Accept: 'text/csv' },
        }),
        400,
        'invalid_parameter',
      );
    expectError(
      await call('GET', '/subscribers', { headers: { Accept: 'text/csv' } }),
      401,
      'rest_forbidden',
    );
  });
});
