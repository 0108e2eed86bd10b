/**
 * API v2 over raw HTTP against the local stack (what `cdk synth` built, each function with its
 * own role): the original's routes and success shapes (`../shared/spec/original-v2.md`), named
 * keys in the query string and as HTTP Basic, permissions enforced, a revoked key refused, the
 * error bodies of decisions part 11, paging with WordPress's headers, and failed key checks
 * counted toward the keyless rate limit.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey, revokeClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { send } from '../hardening/support/harness.ts';
import { freshAddresses } from '../support/fixtures.ts';
import { documentClient } from '../support/local-dynamo.ts';
import { type ApiResponse, type LocalService, startLocalService } from './support/local-service.ts';

let service: LocalService;
let v2: string;
let keys: DynamoClientKeyStore;

interface Credentials {
  readonly key: string;
  readonly secret: string;
}
let reader: Credentials;
let writer: Credentials;

async function makeKey(permission: 'read' | 'write', name = `${permission} key`) {
  const created = await createClientKey({ keys, now: () => new Date() }, name, permission);
  if (isNewsletterError(created)) throw new Error(created.message);
  return { key: created.record.client_key, secret: created.clientSecret };
}

beforeAll(async () => {
  service = await startLocalService();
  v2 = service.apiRoot.replace(/\/v1$/, '/v2');
  keys = new DynamoClientKeyStore(
    documentClient(service.stack.dynamo.endpoint),
    service.stack.tableName,
  );
  reader = await makeKey('read');
  writer = await makeKey('write');
});

afterAll(async () => {
  await service?.stop();
});

afterEach(() => {
  service.resetSettings();
});

const address = freshAddresses();

/** The credentials in the query string, as the original's clients mostly send them. */
const inQuery = (credentials: Credentials): string =>
  `client_key=${credentials.key}&client_secret=${credentials.secret}`;

/** HTTP Basic: key as user, secret as password. */
const basic = (credentials: Credentials): Record<string, string> => ({
  Authorization: `Basic ${Buffer.from(`${credentials.key}:${credentials.secret}`).toString('base64')}`,
});

/** A v2 call; `credentials` go in the query string unless `auth` says Basic. */
function call(
  method: string,
  path: string,
  options: {
    credentials?: Credentials;
    auth?: 'query' | 'basic';
    query?: string;
    body?: unknown;
  } = {},
): Promise<ApiResponse> {
  const query = [
    options.credentials && options.auth !== 'basic' ? inQuery(options.credentials) : '',
    options.query ?? '',
  ]
    .filter(Boolean)
    .join('&');
  const headers: Record<string, string> = {
    ...(options.credentials && options.auth === 'basic' ? basic(options.credentials) : {}),
    ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
  };
  return service.request(method, `${v2}${path}${query ? `?${query}` : ''}`, {
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
}

function expectError(response: ApiResponse, status: number, code: string, message?: string) {
  expect(response.status, response.text).toBe(status);
  const body = response.json as { code: string; message: string; data: { status: number } };
  expect(body.code).toBe(code);
  expect(body.data.status).toBe(status);
  if (message !== undefined) expect(body.message).toBe(message);
}

const SUBSCRIBER_FIELDS = [
  'city',
  'country',
  'email',
  'extra_fields',
  'first_name',
  'gender',
  'id',
  'last_name',
  'lists',
  'region',
  'status',
];

describe('keys', () => {
  it('[v2.keys] GET /test answers {} for a key in the query string and as HTTP Basic', async () => {
    for (const auth of ['query', 'basic'] as const) {
      const response = await call('GET', '/test', { credentials: reader, auth });
      expect(response.status, response.text).toBe(200);
      expect(response.json).toEqual({});
    }
  });

  it('[v2.auth-errors] no credentials: 401 rest_forbidden; unknown key or wrong secret: 401 tnp_auth_error', async () => {
    expectError(
      await call('GET', '/test'),
      401,
      'rest_forbidden',
      'Sorry, you are not allowed to do that.',
    );
    expectError(
      await call('GET', '/test', { credentials: { key: 'a'.repeat(40), secret: reader.secret } }),
      401,
      'tnp_auth_error',
      'API key not found',
    );
    for (const auth of ['query', 'basic'] as const) {
      expectError(
        await call('GET', '/test', { credentials: { ...reader, secret: 'b'.repeat(40) }, auth }),
        401,
        'tnp_auth_error',
        'Invalid secret',
      );
    }
    // A bearer header on a keyed route is a person's sign-in token, and this one is none
    // ([console.token]); on a public route it is ignored ([console.token-public]).
    const bearer = await service.request('GET', `${v2}/test`, {
      headers: { Authorization: 'Bearer something' },
    });
    expectError(bearer, 401, 'tnp_auth_error');
  });

  it('[v2.keys] the query string wins over HTTP Basic; a body never carries a key', async () => {
    const both = await service.request('GET', `${v2}/test?${inQuery(reader)}`, {
      headers: basic({ ...reader, secret: 'c'.repeat(40) }),
    });
    expect(both.status).toBe(200);
    const inBody = await service.request('POST', `${v2}/subscribers`, {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email: address('inbody'),
        client_key: writer.key,
        client_secret: writer.secret,
      }),
    });
    expectError(inBody, 401, 'rest_forbidden');
  });

  it('[v2.permissions] a read key reads but cannot write (403); a write key does both', async () => {
    const email = address('readonly');
    expectError(
      await call('POST', '/subscribers', { credentials: reader, body: { email } }),
      403,
      'forbidden',
    );
    expectError(
      await call('DELETE', `/subscribers/${encodeURIComponent(email)}`, { credentials: reader }),
      403,
      'forbidden',
    );
    expect(
      (await call('POST', '/subscribers', { credentials: writer, body: { email } })).status,
    ).toBe(201);
    expect((await call('GET', '/lists', { credentials: writer })).status).toBe(200);
  });

  it('[v2.key-cache] a revoked key is refused once the function cache lifetime has passed', async () => {
    const doomed = await makeKey('read', 'to revoke');
    expect((await call('GET', '/test', { credentials: doomed })).status).toBe(200);
    const revoked = await revokeClientKey({ keys, now: () => new Date() }, doomed.key);
    expect(isNewsletterError(revoked)).toBe(false);
    // The test synth caches nothing (parameterCacheSeconds=0), `npm start` 5 s, AWS at most
    // 300 s; the lifetime itself is proven by test/unit/v2/check-client-key.test.ts.
    const deadline = Date.now() + 15_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      status = (await call('GET', '/test', { credentials: doomed })).status;
    }
    expect(status).toBe(401);
  }, 30_000);

  it('[v2.key-abuse] failed key checks count toward the keyless rate limit: over it, 429', async () => {
    service.setSettings({ public_rate_limit: { max_requests: 3, window_minutes: 10 } });
    const client = '127.0.0.77';
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const answer = await send(v2, {
        method: 'GET',
        path: `${new URL(v2).pathname}/test?client_key=${reader.key}&client_secret=${'d'.repeat(40)}`,
        localAddress: client,
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // A right key from that client is not held back: only failures count.
    const right = await send(v2, {
      method: 'GET',
      path: `${new URL(v2).pathname}/test?${inQuery(reader)}`,
      localAddress: client,
    });
    expect(right.status).toBe(200);
  });
});

describe('lists and extra fields', () => {
  it('[v2.lists] GET /lists gives every list as {id, name}, private ones included, with X-WP-Total', async () => {
    const response = await call('GET', '/lists', { credentials: reader });
    expect(response.status).toBe(200);
    const members = (response.json as { subscribers: number }[]).map((list) => list.subscribers);
    expect(members.every(Number.isInteger)).toBe(true);
    expect(response.json).toEqual(
      [
        { id: 1, name: 'Weekly digest' },
        { id: 2, name: 'Product updates' },
        { id: 3, name: 'Beta testers' },
        { id: 4, name: 'Events' },
      ].map((list, index) => ({ ...list, subscribers: members[index] })),
    );
    expect(response.headers.get('x-wp-total')).toBe('4');
    expect(response.headers.get('x-wp-totalpages')).toBe('1');
    const paged = await call('GET', '/lists', { credentials: reader, query: 'per_page=3&page=2' });
    expect(paged.json).toEqual([{ id: 4, name: 'Events', subscribers: members[3] }]);
    expect(paged.headers.get('x-wp-totalpages')).toBe('2');
  });

  it("[v2.list-members] GET /lists counts each list's confirmed members, as subscribers change", async () => {
    // The counts follow the table's stream: what a moment after a change shows.
    const count = async (id: number) => {
      await service.stack.settled();
      return (
        (await call('GET', '/lists', { credentials: reader })).json as {
          id: number;
          subscribers: number;
        }[]
      ).find((list) => list.id === id)?.subscribers;
    };
    const before = await count(4);
    const email = 'member-of-events@example.com';
    await call('POST', '/subscribers', {
      credentials: writer,
      body: { email, status: 'confirmed', lists: [4] },
    });
    expect(await count(4)).toBe((before ?? 0) + 1);
    await call('PUT', `/subscribers/${email}`, {
      credentials: writer,
      body: { status: 'unsubscribed' },
    });
    expect(await count(4)).toBe(before);
  });

  it('[v2.errors] an unknown list is the original 404 body with code -1', async () => {
    expect((await call('GET', '/lists/3', { credentials: reader })).json).toEqual({
      id: 3,
      name: 'Beta testers',
    });
    expectError(
      await call('GET', '/lists/99', { credentials: reader }),
      404,
      '-1',
      'List does not exist',
    );
  });

  it('[v2.lists] GET /extrafields gives the profile fields as {id, name}', async () => {
    const response = await call('GET', '/extrafields', { credentials: reader });
    expect(response.json).toEqual([
      { id: 'city', name: 'City' },
      { id: 'company', name: 'Company' },
    ]);
    expect((await call('GET', '/extrafields/city', { credentials: reader })).json).toEqual({
      id: 'city',
      name: 'City',
    });
    expectError(await call('GET', '/extrafields/shoe', { credentials: reader }), 404, '-1');
  });
});

describe('subscribers', () => {
  it('[v2.subscriber-upsert] POST creates (201), then updates the same address (200), in the original shape', async () => {
    const email = address('upsert');
    const created = await call('POST', '/subscribers', {
      credentials: writer,
      body: {
        email,
        first_name: 'Ada',
        last_name: 'Lovelace',
        gender: 'F',
        country: 'gb',
        region: 'London',
        city: 'Marylebone',
        language: 'en',
        lists: [1, 3],
        extra_fields: [{ id: 'company', value: 'Analytical' }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const body = created.json as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(SUBSCRIBER_FIELDS);
    expect(body).toMatchObject({
      email,
      first_name: 'Ada',
      last_name: 'Lovelace',
      gender: 'F',
      country: 'GB',
      region: 'London',
      city: 'Marylebone',
      // List 2 is pre-assigned to every new subscriber.
      lists: [
        { id: 1, name: 'Weekly digest' },
        { id: 2, name: 'Product updates' },
        { id: 3, name: 'Beta testers' },
      ],
      extra_fields: [{ id: 'company', value: 'Analytical' }],
      status: 'not_confirmed',
    });
    const updated = await call('POST', '/subscribers', {
      credentials: writer,
      body: { email, first_name: 'Augusta', status: 'confirmed', lists: [-1] },
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({
      id: body.id,
      first_name: 'Augusta',
      last_name: 'Lovelace',
      status: 'confirmed',
      lists: [
        { id: 2, name: 'Product updates' },
        { id: 3, name: 'Beta testers' },
      ],
    });
  });

  it('[v2.subscriber-reference] GET, PUT and DELETE find a subscriber by id or by address', async () => {
    const email = address('byref');
    const created = (
      await call('POST', '/subscribers', { credentials: writer, body: { email, gender: 'M' } })
    ).json as { id: number };
    const byId = await call('GET', `/subscribers/${created.id}`, { credentials: reader });
    const byEmail = await call('GET', `/subscribers/${encodeURIComponent(email)}`, {
      credentials: reader,
    });
    expect(byId.json).toEqual(byEmail.json);
    expect(byId.json).toMatchObject({ id: created.id, email, gender: 'M', country: '' });

    const put = await call('PUT', `/subscribers/${created.id}`, {
      credentials: writer,
      body: {
        last_name: 'Babbage',
        lists: [
          { id: 4, value: 1 },
          { id: 2, value: 0 },
        ],
      },
    });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({
      email,
      last_name: 'Babbage',
      gender: 'M',
      lists: [{ id: 4, name: 'Events' }],
    });

    const deleted = await call('DELETE', `/subscribers/${created.id}`, { credentials: writer });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toBe('Deleted');
    expectError(
      await call('GET', `/subscribers/${created.id}`, { credentials: reader }),
      404,
      '-1',
      'Subscriber does not exist',
    );
    expectError(
      await call('DELETE', `/subscribers/${encodeURIComponent(email)}`, { credentials: writer }),
      404,
      '-1',
    );
  });

  it('[v2.subscriber-upsert] PUT of an unknown address creates it (201); of an unknown id is a 404', async () => {
    const email = address('putnew');
    const created = await call('PUT', `/subscribers/${encodeURIComponent(email)}`, {
      credentials: writer,
      body: { first_name: 'New' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ email, first_name: 'New', status: 'not_confirmed' });
    expectError(
      await call('PUT', '/subscribers/987654321', { credentials: writer, body: { city: 'X' } }),
      404,
      '-1',
    );
  });

  it('[v2.email-taken] moving a subscriber to an address another has is a 409; to a free one moves it', async () => {
    const first = address('first');
    const second = address('second');
    const a = (await call('POST', '/subscribers', { credentials: writer, body: { email: first } }))
      .json as { id: number };
    await call('POST', '/subscribers', { credentials: writer, body: { email: second } });
    expectError(
      await call('PUT', `/subscribers/${a.id}`, { credentials: writer, body: { email: second } }),
      409,
      'email_taken',
    );
    // An unknown address in the path, a taken one in the body: the same 409, never a 503
    // (found by test/hardening/hostile-v2.test.ts); an unknown id with one: a 404.
    for (const path of [encodeURIComponent('{2f.:#'), encodeURIComponent(address('unknown'))])
      expectError(
        await call('PUT', `/subscribers/${path}`, { credentials: writer, body: { email: second } }),
        409,
        'email_taken',
      );
    expectError(
      await call('PUT', '/subscribers/999999999', {
        credentials: writer,
        body: { email: address('never') },
      }),
      404,
      '-1',
    );
    const moved = address('moved');
    const answer = await call('PUT', `/subscribers/${a.id}`, {
      credentials: writer,
      body: { email: moved },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ id: a.id, email: moved });
    expect((await call('GET', `/subscribers/${a.id}`, { credentials: reader })).json).toMatchObject(
      {
        email: moved,
      },
    );
    expectError(
      await call('GET', `/subscribers/${encodeURIComponent(first)}`, { credentials: reader }),
      404,
      '-1',
    );
  });

  it('[v2.subscriber-input] bad input is a 400 naming the field, never a 500', async () => {
    const email = address('bad');
    for (const [body, code] of [
      [{ email: 'not an address' }, 'invalid_email'],
      [{ email, country: 'GBR' }, 'invalid_parameter'],
      [{ email, gender: 'X' }, 'invalid_parameter'],
      [{ email, status: 'bounced' }, 'invalid_parameter'],
      [{ email, lists: [99] }, 'unknown_list'],
      [{ email, lists: ['x'] }, 'invalid_parameter'],
      [{ email, first_name: 'a\nb' }, 'invalid_parameter'],
      [{ email, extra_fields: 'x' }, 'invalid_parameter'],
      [{}, 'missing_parameter'],
    ] as const) {
      expectError(await call('POST', '/subscribers', { credentials: writer, body }), 400, code);
    }
  });

  it('[v2.paging] GET /subscribers pages newest first with X-WP-Total, filters and per_page at most 100', async () => {
    const prefix = `pagetest${Date.now()}`;
    const emails: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const email = `${prefix}-${i}@example.com`;
      emails.push(email);
      await call('POST', '/subscribers', {
        credentials: writer,
        body: { email, status: i % 2 === 0 ? 'confirmed' : 'not_confirmed', lists: [4] },
      });
    }
    const first = await call('GET', '/subscribers', {
      credentials: reader,
      query: `search=${prefix}&per_page=2`,
    });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('x-wp-total')).toBe('5');
    expect(first.headers.get('x-wp-totalpages')).toBe('3');
    expect((first.json as { email: string }[]).map((each) => each.email)).toEqual([
      emails[4],
      emails[3],
    ]);
    const last = await call('GET', '/subscribers', {
      credentials: reader,
      query: `search=${prefix}&per_page=2&page=3`,
    });
    expect((last.json as { email: string }[]).map((each) => each.email)).toEqual([emails[0]]);
    const oldest = await call('GET', '/subscribers', {
      credentials: reader,
      query: `search=${prefix}&order=asc&status=confirmed`,
    });
    expect((oldest.json as { email: string }[]).map((each) => each.email)).toEqual([
      emails[0],
      emails[2],
      emails[4],
    ]);
    const defaults = await call('GET', '/subscribers', { credentials: reader });
    expect((defaults.json as unknown[]).length).toBeLessThanOrEqual(10);
    expectError(
      await call('GET', '/subscribers', { credentials: reader, query: 'per_page=101' }),
      400,
      'invalid_parameter',
    );
    expectError(
      await call('GET', '/subscribers', { credentials: reader, query: 'list=99' }),
      400,
      'unknown_list',
    );
    // Longer than any address (hostile-console.test.ts found it a 500): a clear 400.
    expectError(
      await call('GET', '/subscribers', {
        credentials: reader,
        query: `search=${'a'.repeat(2_000)}`,
      }),
      400,
      'invalid_parameter',
    );
  });
});

describe('newsletters', () => {
  it('[v2.newsletters] anonymous callers see sent public issues; a key sees every issue with status and counts', async () => {
    const anonymous = await call('GET', '/newsletters', { query: 'per_page=100' });
    expect(anonymous.status).toBe(200);
    const shown = anonymous.json as Record<string, unknown>[];
    expect(shown.length).toBeGreaterThan(0);
    for (const issue of shown) {
      expect(Object.keys(issue).sort()).toEqual([
        'html_content',
        'id',
        'plain_content',
        'sent_on',
        'subject',
      ]);
      expect(issue.sent_on).not.toBeNull();
    }
    expect(anonymous.headers.get('x-wp-total')).toBe(String(shown.length));
    const keyed = await call('GET', '/newsletters', { credentials: reader, query: 'per_page=100' });
    const all = keyed.json as { status: string; private: boolean }[];
    expect(all.length).toBeGreaterThan(shown.length);
    expect(all.some((issue) => issue.status === 'draft')).toBe(true);
    expect(all.some((issue) => issue.private)).toBe(true);
  });

  it('[v2.newsletters] by id: a private issue is 403 without a key, a draft 404, both shown with a key', async () => {
    const keyed = (
      await call('GET', '/newsletters', { credentials: reader, query: 'per_page=100' })
    ).json as { id: number; status: string; private: boolean }[];
    const privateSent = keyed.find((issue) => issue.private && issue.status === 'sent');
    const draft = keyed.find((issue) => issue.status === 'draft');
    if (!privateSent || !draft) throw new Error('the demo issues changed');
    expectError(await call('GET', `/newsletters/${privateSent.id}`), 403, 'forbidden');
    expectError(await call('GET', `/newsletters/${draft.id}`), 404, '-1');
    expectError(await call('GET', '/newsletters/99999'), 404, '-1');
    expect((await call('GET', `/newsletters/${draft.id}`, { credentials: reader })).status).toBe(
      200,
    );
  });

  it('[v2.newsletter-detail] by id with a key: also the lists it goes to, its start if scheduled, and its address; never without one', async () => {
    const keyed = (
      await call('GET', '/newsletters', { credentials: reader, query: 'per_page=100' })
    ).json as { id: number; status: string; private: boolean }[];
    const privateSent = keyed.find((issue) => issue.private && issue.status === 'sent');
    const publicSent = keyed.find((issue) => !issue.private && issue.status === 'sent');
    if (!privateSent || !publicSent) throw new Error('the demo issues changed');
    const created = await call('POST', '/issues', {
      credentials: writer,
      body: { subject: 'Detail', html: '<p>Hi</p>', lists: [2, 4] },
    });
    const id = (created.json as { id: number }).id;
    const at = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await call('POST', `/issues/${id}/schedule`, { credentials: writer, body: { at } });
    const detail = (await call('GET', `/newsletters/${id}`, { credentials: reader })).json as {
      lists: number[];
      scheduled_at: string | null;
      url: string | null;
    };
    expect(detail.lists).toEqual([2, 4]);
    expect(Date.parse(detail.scheduled_at ?? '')).toBe(Date.parse(at));
    const address = (
      (await call('GET', `/newsletters/${privateSent.id}`, { credentials: reader })).json as {
        url: string | null;
      }
    ).url;
    expect(address).toMatch(/^https:\/\//);
    expect(detail.url).toBeNull();
    const anonymous = (await call('GET', `/newsletters/${publicSent.id}`)).json as object;
    expect(Object.keys(anonymous)).not.toContain('lists');
    expect(Object.keys(anonymous)).not.toContain('url');
  });
});

describe('subscriptions', () => {
  const subscribeV2 = async (body: unknown, credentials?: Credentials) => {
    const answer = await call('POST', '/subscriptions', {
      body,
      ...(credentials ? { credentials } : {}),
    });
    await service.stack.settled();
    return answer;
  };
  const stored = async (email: string) =>
    (await call('GET', `/subscribers/${encodeURIComponent(email)}`, { credentials: reader }))
      .json as { status?: string; first_name?: string; lists?: { id: number }[] };

  it('[v2.subscriptions] keyless: the public subscribe, 201 {}, an activation mail, not_confirmed', async () => {
    const email = address('public');
    const answer = await subscribeV2({ email, first_name: 'Pat', lists: [1, -4] });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.json).toEqual({});
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(await stored(email)).toMatchObject({ status: 'not_confirmed', first_name: 'Pat' });
    expect((await service.mails(email)).map((mail) => mail.subject)).toEqual([
      'Please confirm your subscription',
    ]);
    // The same answer for an address that exists: nothing tells a stranger who subscribed.
    const again = await subscribeV2({ email });
    expect([again.status, again.json]).toEqual([201, {}]);
  });

  it('[v2.subscriptions] keyless single opt-in is refused unless the settings are single opt-in', async () => {
    const email = address('single');
    expectError(await subscribeV2({ email, optin: 'single' }), 403, 'forbidden');
    expect(
      (await call('GET', `/subscribers/${encodeURIComponent(email)}`, { credentials: reader }))
        .status,
    ).toBe(404);
    service.setSettings({ opt_in: 'single' });
    expect((await subscribeV2({ email, optin: 'single' })).status).toBe(201);
    expect(await stored(email)).toMatchObject({ status: 'confirmed' });
  });

  it('[v2.subscriptions] with a write key, single opt-in confirms at once; a read key grants nothing', async () => {
    const email = address('keyedsingle');
    // A read key makes the call keyless: single opt-in is refused as it would be without it.
    expectError(await subscribeV2({ email, optin: 'single' }, reader), 403, 'forbidden');
    const answer = await subscribeV2({ email, optin: 'single', lists: [3] }, writer);
    expect(answer.status, answer.text).toBe(201);
    expect(await stored(email)).toMatchObject({ status: 'confirmed' });
    // A private list needs the key: keyless, it is a 403.
    expectError(await subscribeV2({ email: address('private'), lists: [3] }), 403, 'private_list');
  });

  it('[v2.subscriptions] country, region, city and language are stored and shown as on /subscribers', async () => {
    const email = address('place');
    const place = { country: 'pt', region: 'Lisboa', city: 'Lisbon', language: 'pt_PT' };
    // Keyless: the request record carries them to the stream processor, which stores them.
    const answer = await subscribeV2({ email, ...place });
    expect(answer.status, answer.text).toBe(201);
    expect(await stored(email)).toMatchObject({
      status: 'not_confirmed',
      country: 'PT',
      region: 'Lisboa',
      city: 'Lisbon',
    });
    // With a write key, at once; what is given replaces, what is not stays.
    const keyed = await subscribeV2({ email, optin: 'single', city: 'Porto' }, writer);
    expect(keyed.status, keyed.text).toBe(201);
    expect(await stored(email)).toMatchObject({ country: 'PT', region: 'Lisboa', city: 'Porto' });
    // The same validation as /subscribers: a 400 naming the field, nothing stored.
    const other = address('badplace');
    expectError(await subscribeV2({ email: other, country: 'Portugal' }), 400, 'invalid_parameter');
    expectError(
      await subscribeV2({ email: other, language: 'not a code' }),
      400,
      'invalid_parameter',
    );
    expect(
      (await call('GET', `/subscribers/${encodeURIComponent(other)}`, { credentials: reader }))
        .status,
    ).toBe(404);
  });
});

describe('list writes (ours)', () => {
  it('[v2.lists-write] POST /lists creates the next list (201); PUT renames it; a read key is refused', async () => {
    expectError(
      await call('POST', '/lists', { credentials: reader, body: { name: 'No' } }),
      403,
      'forbidden',
    );
    const created = await call('POST', '/lists', {
      credentials: writer,
      body: { name: 'Partners', private: true },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toEqual({ id: 5, name: 'Partners' });
    const renamed = await call('PUT', '/lists/5', {
      credentials: writer,
      body: { name: 'Allies' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toEqual({ id: 5, name: 'Allies' });
    expect((await call('GET', '/lists/5', { credentials: reader })).json).toEqual({
      id: 5,
      name: 'Allies',
    });
    // The new list is private: a keyless subscription naming it is refused.
    const refused = await call('POST', '/subscriptions', {
      body: { email: address('allies'), lists: [5] },
    });
    expectError(refused, 403, 'private_list');
  });

  it('[v2.lists-write] bad list writes are 400s and change nothing; an unknown list is the 404 -1', async () => {
    expectError(
      await call('POST', '/lists', { credentials: writer, body: {} }),
      400,
      'missing_parameter',
    );
    expectError(
      await call('POST', '/lists', { credentials: writer, body: { name: 'x'.repeat(101) } }),
      400,
      'invalid_parameter',
    );
    expectError(
      await call('PUT', '/lists/1', { credentials: writer, body: { private: 'maybe' } }),
      400,
      'invalid_parameter',
    );
    expectError(
      await call('PUT', '/lists/1', { credentials: writer, body: {} }),
      400,
      'missing_parameter',
    );
    expectError(
      await call('PUT', '/lists/99', { credentials: writer, body: { name: 'X' } }),
      404,
      '-1',
    );
    expect(((await call('GET', '/lists', { credentials: reader })).json as unknown[]).length).toBe(
      4,
    );
  });

  it('[v2.lists-delete] DELETE /lists/{id} deletes a list no unsent issue names; its id is never given again', async () => {
    const list = (await call('POST', '/lists', { credentials: writer, body: { name: 'Season' } }))
      .json as { id: number };
    const member = address('season');
    const added = await call('POST', '/subscribers', {
      credentials: writer,
      body: { email: member, lists: [list.id] },
    });
    expect(added.status, added.text).toBe(201);
    expectError(
      await call('DELETE', `/lists/${list.id}`, { credentials: reader }),
      403,
      'forbidden',
    );

    const deleted = await call('DELETE', `/lists/${list.id}`, { credentials: writer });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toBe('Deleted');
    expectError(await call('GET', `/lists/${list.id}`, { credentials: reader }), 404, '-1');
    expectError(await call('DELETE', `/lists/${list.id}`, { credentials: writer }), 404, '-1');
    // Its member keeps the id, shown without a name, as any id the settings no longer have.
    const kept = await call('GET', `/subscribers/${member}`, { credentials: reader });
    expect((kept.json as { lists: unknown[] }).lists).toContainEqual({ id: list.id, name: '' });
    // The next list does not get the deleted id.
    const next = await call('POST', '/lists', { credentials: writer, body: { name: 'Next' } });
    expect(next.json).toEqual({ id: list.id + 1, name: 'Next' });
    // Nor can a subscriber be put on it any more; taking the id off one still works.
    expectError(
      await call('PUT', `/subscribers/${member}`, {
        credentials: writer,
        body: { lists: [list.id] },
      }),
      400,
      'unknown_list',
    );
    const shed = await call('PUT', `/subscribers/${member}`, {
      credentials: writer,
      body: { lists: [-list.id] },
    });
    expect(shed.status, shed.text).toBe(200);
    expect((shed.json as { lists: { id: number }[] }).lists.map((each) => each.id)).not.toContain(
      list.id,
    );
  });

  it('[v2.lists-delete] a list an issue still to be sent names is not deleted: 409 list_in_use naming it', async () => {
    const list = (await call('POST', '/lists', { credentials: writer, body: { name: 'Busy' } }))
      .json as { id: number };
    const draft = await call('POST', '/issues', {
      credentials: writer,
      body: {
        subject: 'Still a draft',
        html: '<p>Hi</p><p><a href="{unsubscription_url}">Leave</a></p>',
        lists: [list.id],
      },
    });
    const issue = (draft.json as { id: number }).id;
    const refused = await call('DELETE', `/lists/${list.id}`, { credentials: writer });
    expectError(
      refused,
      409,
      'list_in_use',
      `Newsletters not sent yet go to list ${list.id} (${issue}): send or cancel them, or change their lists, first.`,
    );
    expect((await call('GET', `/lists/${list.id}`, { credentials: reader })).json).toEqual({
      id: list.id,
      name: 'Busy',
    });
    // Once the draft goes elsewhere, the list can go.
    expect(
      (await call('PUT', `/issues/${issue}`, { credentials: writer, body: { lists: [1] } })).status,
    ).toBe(200);
    expect((await call('DELETE', `/lists/${list.id}`, { credentials: writer })).status).toBe(200);
    for (const id of ['99', 'abc', '0'])
      expectError(await call('DELETE', `/lists/${id}`, { credentials: writer }), 404, '-1');
  });
});
