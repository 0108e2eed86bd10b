/**
 * Hostile input over what came after the last hostile-input runs (hostile-input.test.ts: v1;
 * hostile-v2.test.ts: v2 with client keys and subscriber fields): every v2 route called as the
 * console calls it, with a signed-in admin's or editor's token (and forged, garbage and mixed
 * credentials), bodies of the issue, list, settings, people and subscriber shapes, CSV import
 * parts, CSV exports and reports (`Accept: text/csv`), and the links campaign mails carry (the
 * unsubscribe link of an issue, the web version). Over real HTTP through the distribution,
 * the functions `cdk synth` built. Whatever arrives: no 5xx, every refusal a clear error in
 * the JSON shape (HTML on the link pages), a batch in which everything was refused leaves the
 * table as it was (but for the per-address counters failed checks keep), and the table holds
 * together at the end.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { personIdToken } from '../support/console-admin.ts';
import { V2_CONTRACT_ENDPOINTS } from '../support/contract.ts';
import { FC_SEED } from '../support/setup.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  apiPath,
  changedKeys,
  checkIntegrity,
  documentClient,
  dumpTable,
  figure,
  hardeningSettings,
  inPool,
  putSettings,
  type RawResponse,
  send,
  tally,
} from './support/harness.ts';

/** Requests per batch (the table is dumped around each), batches, requests in flight. */
const BATCH = 10;
const RUNS = 80;
const WIDTH = 6;

let stack: TestStack;
let db: ReturnType<typeof documentClient>;
let v2Root: string;
/** Credentials by kind: query pairs of a client key, or an Authorization header. */
let auth: Record<string, { query?: string; authorization?: string }>;
/** Ids that exist, so that some requests get past "not found". */
const known = { issue: '1', subscriber: '1', email: 'known@example.com' };

beforeAll(async () => {
  stack = await startTestStack();
  putSettings(
    stack.parameters,
    hardeningSettings({ public_rate_limit: { max_requests: 100_000, window_minutes: 10 } }),
  );
  db = documentClient(stack.dynamo.endpoint);
  v2Root = stack.apiRoot.replace(/\/v1$/, '/v2');
  const store = new DynamoClientKeyStore(db, stack.tableName);
  const key = async (permission: 'read' | 'write') => {
    const made = await createClientKey({ keys: store, now: () => new Date() }, 'fuzz', permission);
    if (isNewsletterError(made)) throw new Error(made.message);
    return `client_key=${made.record.client_key}&client_secret=${made.clientSecret}`;
  };
  const admin = await personIdToken(stack, 'fuzz-admin@example.com', 'Fuzz-Admin-Pass-1!', 'admin');
  const editor = await personIdToken(
    stack,
    'fuzz-editor@example.com',
    'Fuzz-Editor-Pass-1!',
    'editor',
  );
  const [header, payload = '', signature = ''] = admin.split('.');
  // The admin's token with its claims changed (a role and an audience of someone else's).
  const forged = `${header}.${Buffer.from(
    JSON.stringify({
      ...JSON.parse(Buffer.from(payload, 'base64url').toString()),
      'cognito:groups': ['admin'],
      aud: 'other',
    }),
  ).toString('base64url')}.${signature}`;
  auth = {
    admin: { authorization: `Bearer ${admin}` },
    editor: { authorization: `Bearer ${editor}` },
    write: { query: await key('write') },
    read: { query: await key('read') },
    none: {},
    forged: { authorization: `Bearer ${forged}` },
    garbage: { authorization: 'Bearer a.b.c' },
    empty: { authorization: 'Bearer ' },
    mixed: { authorization: `Bearer ${editor}`, query: 'client_key=x&client_secret=y' },
  };
  // What some requests find: a subscriber, a draft issue.
  const added = await send(stack.apiRoot, {
    method: 'POST',
    path: apiPath(stack.apiRoot, '/subscribers/add'),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: stack.apiKey, email: known.email, lists: [1] }),
  });
  known.subscriber = String((JSON.parse(added.text) as { id: number }).id);
  const issue = await send(v2Root, {
    method: 'POST',
    path: apiPath(v2Root, '/issues'),
    headers: { 'content-type': 'application/json', ...(auth.admin as { authorization: string }) },
    body: JSON.stringify({ subject: 'Fuzz', html: '<p>Hello {name}</p>', lists: [1] }),
  });
  known.issue = String((JSON.parse(issue.text) as { id: number }).id);
}, 120_000);

afterAll(async () => {
  db?.destroy();
  await stack?.stop();
});

/** A request and where it goes, for the checks. */
interface Hostile {
  readonly kind: 'v2' | 'unsubscribe-link' | 'web-version';
  readonly endpoint: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer | string;
  readonly csv: boolean;
}

const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    '0',
    '-1',
    '99999999999999999999',
    'NaN',
    '__proto__',
    'constructor',
    '%00',
    '\u0000',
    '\r\nBcc: victim@example.com',
    '=HYPERLINK("https://evil.example","x")',
    '+cmd|" /C calc"!A0',
    '<script>alert(1)</script>',
    '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    '{name}{unsubscription_url}{profile_constructor}',
    'https://evil.example/\u202Egpj.exe',
    'javascript:alert(1)',
    'a@b',
    'fuzz@example.com',
    known.email,
    'admin',
    'editor',
    'root',
    'A'.repeat(5_000),
    `${new Date(Date.now() + 3_600_000).toISOString().slice(0, 19)}Z`,
    '2020-01-01T00:00:00Z',
  ),
);
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileText,
    fc.integer({ min: -3, max: 120 }),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostileText, tie('value'), { maxKeys: 3 }),
  ),
})).value;

const FIELDS = [
  // Issues.
  'subject',
  'html',
  'text',
  'lists',
  'private',
  'url',
  'to',
  'new_only',
  'accept_quota',
  'at',
  // Lists.
  'name',
  'preassigned',
  'id',
  // People.
  'email',
  'role',
  // Settings.
  'settings',
  'version',
  // Subscribers.
  'first_name',
  'last_name',
  'status',
  'extra_fields',
];

/** A CSV part, mostly malformed: headers, cells, line ends, encodings, sizes. */
const csvPart: fc.Arbitrary<Buffer> = fc
  .record({
    header: fc.constantFrom(
      'email',
      'email,name,surname,lists,status,profile_city',
      '\uFEFFemail,name',
      'EMAIL',
      'email,email',
      'name,surname',
      'email,profile_shoe',
      '',
      '"email',
    ),
    rows: fc.array(
      fc.array(fc.oneof(hostileText, fc.constantFrom('C', 'S', 'U', 'B', 'P', "'=1+1", '1|3')), {
        maxLength: 8,
      }),
      { maxLength: 12 },
    ),
    lineEnd: fc.constantFrom('\n', '\r\n', '\r'),
    quote: fc.boolean(),
    extra: fc.constantFrom('none', 'unclosed', 'latin1', 'nul', 'many-rows'),
  })
  .map(({ header, rows, lineEnd, quote, extra }) => {
    const cell = (value: string) => (quote ? `"${value.replaceAll('"', '""')}"` : value);
    const lines = [header, ...rows.map((row) => row.map(cell).join(','))];
    if (extra === 'many-rows')
      for (let i = 0; i < 1_001; i += 1) lines.push(`fuzz-row-${i}@example.com`);
    let text = lines.join(lineEnd);
    if (extra === 'unclosed') text += `${lineEnd}"never closed`;
    if (extra === 'nul') text += `${lineEnd}nul\u0000@example.com`;
    return extra === 'latin1'
      ? Buffer.concat([Buffer.from(text), Buffer.from([0xff, 0xfe, 0xe9])])
      : Buffer.from(text);
  });

/** A campaign mail's unsubscribe link token, well or badly formed ([campaign.unsubscribe-link]). */
const campaignToken = fc
  .record({
    issue: fc.constantFrom('1', known.issue, '0', '999999999999999', '9999999999999999', '-1'),
    subscriber: fc.constantFrom('1', known.subscriber, '0', '999999999999999', '01'),
    chunk: fc.constantFrom('', '1.1.', '0.0.', '999999999999999.1.', '1.'),
    secret: fc.oneof(
      fc.constantFrom('A'.repeat(43), '_'.repeat(43), 'A'.repeat(42), 'A'.repeat(44)),
      fc.string({ unit: 'grapheme-ascii', minLength: 40, maxLength: 46 }),
    ),
  })
  .map(({ issue, subscriber, chunk, secret }) => `${issue}.${subscriber}.${chunk}${secret}`);

function v2Request(): fc.Arbitrary<Hostile> {
  const segment = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        known.issue,
        known.subscriber,
        encodeURIComponent(known.email),
        '1',
        'city',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '1e3',
        '99999999999999999999',
        '%2e%2e',
        'fuzz-admin%40example.com',
        '%E2%80%AE',
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 })
        .map(encodeURIComponent),
    },
  );
  const body = fc.oneof(
    fc.array(fc.tuple(fc.constantFrom(...FIELDS), jsonValue), { maxLength: 6 }).map((entries) => ({
      type: 'application/json',
      data: Buffer.from(JSON.stringify(Object.fromEntries(entries))),
    })),
    csvPart.map((data) => ({ type: 'text/csv', data })),
    fc.constantFrom(
      { type: 'application/json', data: Buffer.from('{"subject":') },
      { type: 'application/json', data: Buffer.from('[]') },
      { type: 'application/json', data: Buffer.from(JSON.stringify({ html: 'A'.repeat(70_000) })) },
      {
        type: 'application/json',
        data: Buffer.from('{"__proto__":{"admin":true},"role":"admin"}'),
      },
      { type: 'text/csv; charset=latin1', data: Buffer.from('email\nx@example.com') },
      { type: 'text/plain', data: Buffer.from('email=x@example.com') },
      {
        type: 'application/x-www-form-urlencoded',
        data: Buffer.from('subject=x&lists[]=1&lists[]=-2'),
      },
    ),
  );
  return fc
    .record({
      endpoint: fc.constantFrom(...V2_CONTRACT_ENDPOINTS),
      segment,
      // Mostly the route's own method, so requests reach the handlers rather than the guard.
      otherMethod: fc.oneof(
        { weight: 5, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
        },
      ),
      methodIndex: fc.nat(),
      who: fc.constantFrom(...Object.keys(auth)),
      query: fc.array(
        fc.tuple(
          fc.constantFrom(
            'page',
            'per_page',
            'order',
            'status',
            'list',
            'search',
            'after',
            'before',
            'new_only',
            'header',
          ),
          hostileText,
        ),
        { maxLength: 3 },
      ),
      accept: fc.option(
        fc.constantFrom('text/csv', 'text/csv;q=0', 'application/json', '*/*', 'text/html', ';;;'),
      ),
      body: fc.option(body, { freq: 2 }),
    })
    .map(
      ({ endpoint, segment: id, otherMethod, methodIndex, who, query, accept, body: payload }) => {
        const methods = Object.keys(endpoint.methods);
        const method = otherMethod ?? methods[methodIndex % methods.length] ?? 'GET';
        const credentials = auth[who] ?? {};
        const search = new URLSearchParams(query);
        for (const [name, value] of new URLSearchParams(credentials.query ?? ''))
          search.set(name, value);
        const text = search.toString();
        const headers: Record<string, string> = {};
        if (credentials.authorization !== undefined)
          headers.authorization = credentials.authorization;
        if (accept) headers.accept = accept;
        if (payload) headers['content-type'] = payload.type;
        return {
          kind: 'v2' as const,
          endpoint: endpoint.path,
          method,
          path: `${apiPath(v2Root, endpoint.path.replace(/\{[a-z]+\}/, id))}${text ? `?${text}` : ''}`,
          headers,
          ...(payload ? { body: payload.data } : {}),
          csv: accept === 'text/csv' || payload?.type.startsWith('text/csv') === true,
        };
      },
    );
}

function linkRequest(): fc.Arbitrary<Hostile> {
  const unsubscribe = fc
    .record({
      token: campaignToken,
      how: fc.constantFrom('GET', 'POST', 'one-click', 'HEAD'),
    })
    .map(({ token, how }): Hostile => {
      const path = `${apiPath(stack.apiRoot, '/subscription/unsubscribe')}?token=${encodeURIComponent(token)}`;
      return {
        kind: 'unsubscribe-link',
        endpoint: '/subscription/unsubscribe',
        method: how === 'one-click' ? 'POST' : how,
        path,
        headers:
          how === 'GET' || how === 'HEAD'
            ? {}
            : { 'content-type': 'application/x-www-form-urlencoded' },
        ...(how === 'one-click'
          ? { body: 'List-Unsubscribe=One-Click' }
          : how === 'POST'
            ? { body: `token=${encodeURIComponent(token)}` }
            : {}),
        csv: false,
      };
    });
  const view = fc
    .constantFrom(known.issue, '0', '-1', '1.5', '999999999999999999', '%31', 'x', '%00', '1%2F2')
    .map(
      (id): Hostile => ({
        kind: 'web-version',
        endpoint: '/newsletters/{id}/view',
        method: 'GET',
        path: apiPath(stack.apiRoot, `/newsletters/${id}/view`),
        headers: {},
        csv: false,
      }),
    );
  return fc.oneof(unsubscribe, view);
}

/** What is wrong with one answer (empty when fine). */
function problems(request: Hostile, response: RawResponse): string[] {
  const found: string[] = [];
  if (response.status >= 500) found.push(`status ${response.status}`);
  if (response.status === 405 && !response.headers.allow) found.push('405 without Allow');
  if (request.method === 'HEAD' || (request.method === 'OPTIONS' && response.status === 204))
    return found;
  if (request.kind === 'unsubscribe-link') {
    if (!response.contentType.startsWith('text/html') && response.status !== 405)
      found.push(`link page answered ${response.contentType}`);
    return found;
  }
  if (response.status < 300 && response.contentType.startsWith('text/csv')) {
    if (!request.csv) found.push('CSV nobody asked for');
    return found;
  }
  if (response.status < 300 && response.contentType.startsWith('text/html')) {
    if (request.kind !== 'web-version') found.push('HTML from an API route');
    return found;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return [...found, `not JSON (${response.contentType}): ${response.text.slice(0, 60)}`];
  }
  if (response.status >= 400) {
    const error = body as { code?: unknown; message?: unknown; data?: { status?: unknown } };
    const keys = Object.keys(error ?? {})
      .sort()
      .join(',');
    if (keys !== 'code,data,message') found.push(`error keys ${keys}`);
    if (typeof error.code !== 'string' || !/^([a-z_]+|-1)$/.test(error.code))
      found.push(`code ${String(error.code)}`);
    if (typeof error.message !== 'string' || error.message.length === 0) found.push('no message');
    if (error.data?.status !== response.status) found.push('data.status differs');
  }
  return found;
}

it('answers hostile console, CSV, report and campaign-link requests without a 5xx, every refusal a clear error, and loses nothing', async () => {
  const requests = fc.sample(
    fc.oneof({ weight: 4, arbitrary: v2Request() }, { weight: 1, arbitrary: linkRequest() }),
    { numRuns: BATCH * RUNS, seed: FC_SEED },
  );
  const statuses: Record<string, number> = {};
  const byEndpoint: Record<string, number> = {};
  const faults: string[] = [];
  let cleanBatches = 0;
  for (let start = 0; start < requests.length; start += BATCH) {
    const batch = requests.slice(start, start + BATCH);
    await stack.settled();
    const before = await dumpTable(db, stack.tableName);
    const answered = await inPool(batch, WIDTH, async (request) => ({
      request,
      response: await send(stack.apiRoot, request),
    }));
    await stack.settled();
    const after = await dumpTable(db, stack.tableName);
    for (const { request, response } of answered) {
      tally(statuses, response.status);
      tally(byEndpoint, request.endpoint);
      for (const problem of problems(request, response))
        faults.push(
          `${request.method} ${request.path.slice(0, 140)} -> ${response.status}: ${problem}`,
        );
    }
    // Everything refused: nothing but the per-address counters of failed checks may change.
    if (answered.every(({ response }) => response.status >= 400)) {
      const changed = changedKeys(before, after).filter((key) => !key.startsWith('RATE#'));
      for (const key of changed) faults.push(`refused batch changed ${key}`);
      if (changed.length === 0) cleanBatches += 1;
    }
  }
  const { problems: integrity } = await checkIntegrity(db, stack.tableName);
  faults.push(...integrity.map((problem) => `integrity: ${problem}`));
  console.log(
    `[hardening] hostile-console: ${figure(requests.length)} requests (seed ${FC_SEED}): ${Object.entries(
      statuses,
    )
      .map(([status, count]) => `${count}×${status}`)
      .join(', ')}; ${cleanBatches} all-refused batches left the table as it was; ` +
      `${integrity.length} integrity problems`,
  );
  expect(faults.slice(0, 20)).toEqual([]);
  // The mix reached successes and refusals of each kind, on every route and both link kinds.
  for (const status of [200, 400, 401, 403, 404, 405])
    expect(statuses[status] ?? 0).toBeGreaterThan(0);
  for (const endpoint of [
    ...V2_CONTRACT_ENDPOINTS.map((each) => each.path),
    '/subscription/unsubscribe',
    '/newsletters/{id}/view',
  ])
    expect(byEndpoint[endpoint] ?? 0, endpoint).toBeGreaterThan(0);
}, 600_000);
