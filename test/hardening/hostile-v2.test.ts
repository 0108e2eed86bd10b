/**
 * Hostile input against API v2 over real HTTP (the functions `cdk synth` built, each with its
 * own role): generated requests, mostly invalid, on every v2 route and its path segments, with
 * keys right, wrong, half or malformed, in the query string and as HTTP Basic, odd methods,
 * bodies and paging values. Whatever arrives: no 5xx, every error in the JSON error shape
 * (code `-1` included), a 405 with `Allow`, a 2xx with a JSON body.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { V2_CONTRACT_ENDPOINTS } from '../support/contract.ts';
import { FC_SEED } from '../support/setup.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  documentClient,
  hardeningSettings,
  inPool,
  putSettings,
  type RawResponse,
  send,
} from './support/harness.ts';

/** Requests of the run, sent WIDTH at a time. */
const REQUESTS = 800;
const WIDTH = 6;

let stack: TestStack;
let v2Path: string;
let keys: { read: string; write: string };

beforeAll(async () => {
  stack = await startTestStack();
  putSettings(
    stack.parameters,
    hardeningSettings({ public_rate_limit: { max_requests: 100_000, window_minutes: 10 } }),
  );
  v2Path = new URL(stack.apiRoot.replace(/\/v1$/, '/v2')).pathname;
  const store = new DynamoClientKeyStore(documentClient(stack.dynamo.endpoint), stack.tableName);
  const made = async (permission: 'read' | 'write') => {
    const key = await createClientKey({ keys: store, now: () => new Date() }, 'fuzz', permission);
    if (isNewsletterError(key)) throw new Error(key.message);
    return `client_key=${key.record.client_key}&client_secret=${key.clientSecret}`;
  };
  keys = { read: await made('read'), write: await made('write') };
});

afterAll(async () => {
  await stack?.stop();
});

interface V2Request {
  /** The endpoint's path as the contract writes it (`/lists/{id}`). */
  readonly endpoint: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1e309',
    'NaN',
    '__proto__',
    '%',
    '%00',
    "' OR '1'='1",
    'a@b',
    'x@example.com',
    'A'.repeat(5000),
    '\r\n',
    'confirmed',
    'complained',
    // Times: a schedule an hour ahead (a draft gets scheduled), one past, one without a zone.
    `${new Date(Date.now() + 3_600_000).toISOString().slice(0, 19)}Z`,
    '2020-01-01T00:00:00Z',
    '2026-12-01T09:00:00',
  ),
);
const jsonValue = fc.oneof(
  hostileText,
  fc.integer(),
  fc.constant(null),
  fc.array(fc.oneof(fc.integer({ min: -5, max: 120 }), hostileText), { maxLength: 4 }),
  fc.array(fc.record({ id: fc.oneof(fc.integer(), hostileText), value: jsonValue0() })),
  fc.dictionary(hostileText, fc.integer(), { maxKeys: 3 }),
);
function jsonValue0() {
  return fc.oneof(hostileText, fc.integer({ min: -1, max: 2 }), fc.constant(null));
}
const FIELDS = [
  'email',
  'first_name',
  'last_name',
  'gender',
  'status',
  'lists',
  'extra_fields',
  'country',
  'region',
  'city',
  'language',
  'optin',
  // An issue's scheduling time.
  'at',
];

function requestArbitrary(): fc.Arbitrary<V2Request> {
  const segment = fc.oneof(
    fc.constantFrom('1', '2', '99', '0', '007', 'city', 'x@example.com', 'hostile%40example.com'),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
  );
  // Mostly a method the route serves, now and then any other.
  const target = fc
    .tuple(fc.constantFrom(...V2_CONTRACT_ENDPOINTS), segment)
    .chain(([endpoint, id]) =>
      fc.record({
        endpoint: fc.constant(endpoint.path),
        path: fc.constant(endpoint.path.replace('{id}', id)),
        method: fc.oneof(
          { weight: 5, arbitrary: fc.constantFrom(...Object.keys(endpoint.methods)) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
          },
        ),
      }),
    );
  const credentials = fc.constantFrom(
    'none',
    'read',
    'write',
    'wrong',
    'half',
    'basic-read',
    'basic-write',
    'basic-garbage',
  );
  const query = fc.array(
    fc.tuple(
      fc.constantFrom(
        'page',
        'per_page',
        'order',
        'status',
        'list',
        'search',
        'id',
        'new_only',
        'before',
      ),
      hostileText,
    ),
    { maxLength: 3 },
  );
  const body = fc.option(
    fc.oneof(
      fc
        .array(fc.tuple(fc.constantFrom(...FIELDS), jsonValue), { maxLength: 6 })
        .map((entries) => ({
          type: 'application/json',
          text: JSON.stringify(Object.fromEntries(entries)),
        })),
      fc.constantFrom(
        { type: 'application/json', text: '{"email":' },
        { type: 'application/json', text: '[1,2]' },
        { type: 'text/plain', text: 'email=x@example.com' },
        {
          type: 'application/x-www-form-urlencoded',
          text: 'email=fuzz@example.com&lists[]=1&lists[]=-2',
        },
      ),
    ),
  );
  return fc
    .record({
      target,
      credentials,
      query,
      body,
    })
    .map(
      ({
        target: { endpoint, method, path: target },
        credentials: who,
        query: pairs,
        body: payload,
      }) => {
        const search = new URLSearchParams(pairs);
        const headers: Record<string, string> = {};
        const pair = (which: 'read' | 'write') => new URLSearchParams(keys[which]);
        if (who === 'read' || who === 'write')
          for (const [name, value] of pair(who)) search.set(name, value);
        if (who === 'wrong') {
          search.set('client_key', 'f'.repeat(40));
          search.set('client_secret', 'f'.repeat(40));
        }
        if (who === 'half') search.set('client_key', pair('read').get('client_key') ?? '');
        if (who === 'basic-read' || who === 'basic-write') {
          const own = pair(who === 'basic-read' ? 'read' : 'write');
          headers.authorization = `Basic ${Buffer.from(`${own.get('client_key')}:${own.get('client_secret')}`).toString('base64')}`;
        }
        if (who === 'basic-garbage') headers.authorization = 'Basic %%%not-base64';
        if (payload) headers['content-type'] = payload.type;
        const text = search.toString();
        return {
          endpoint,
          method,
          path: `${v2Path}${target}${text ? `?${text}` : ''}`,
          headers,
          ...(payload ? { body: payload.text } : {}),
        };
      },
    );
}

/** What is wrong with one answer (empty when fine). */
function problems(request: V2Request, response: RawResponse): string[] {
  const found: string[] = [];
  if (response.status >= 500) found.push(`status ${response.status}`);
  if (request.method === 'OPTIONS' && response.status === 204) return found;
  if (response.status === 405 && !response.headers.allow) found.push('405 without Allow');
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return [...found, `not JSON: ${response.text.slice(0, 60)}`];
  }
  if (response.status >= 400) {
    const error = body as { code?: unknown; message?: unknown; data?: { status?: unknown } };
    const keys = Object.keys(error ?? {})
      .sort()
      .join(',');
    if (keys !== 'code,data,message') found.push(`error keys ${keys}`);
    if (typeof error.code !== 'string' || !/^([a-z_]+|-1)$/.test(error.code))
      found.push(`code ${String(error.code)}`);
    if (error.data?.status !== response.status) found.push('data.status differs');
  }
  return found;
}

it('[v2.errors] answers hostile requests on every v2 route without a 5xx, errors in the JSON shape', async () => {
  const requests = fc.sample(requestArbitrary(), { numRuns: REQUESTS, seed: FC_SEED });
  const statuses: Record<number, number> = {};
  const byEndpoint: Record<string, number> = {};
  const faults: string[] = [];
  await inPool(requests, WIDTH, async (request) => {
    const response = await send(stack.apiRoot, request);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    byEndpoint[request.endpoint] = (byEndpoint[request.endpoint] ?? 0) + 1;
    for (const problem of problems(request, response))
      faults.push(`${request.method} ${request.path.slice(0, 120)}: ${problem}`);
  });
  console.log(
    `[hardening] hostile-v2: ${requests.length} requests (seed ${FC_SEED}): ${Object.entries(
      statuses,
    )
      .map(([status, count]) => `${count}×${status}`)
      .join(', ')}`,
  );
  expect(faults.slice(0, 20)).toEqual([]);
  // The mix reached successes, refusals of each kind, and not-founds, on every endpoint.
  for (const status of [200, 400, 401, 403, 404, 405])
    expect(statuses[status] ?? 0).toBeGreaterThan(0);
  for (const endpoint of V2_CONTRACT_ENDPOINTS)
    expect(byEndpoint[endpoint.path] ?? 0, endpoint.path).toBeGreaterThan(0);
}, 240_000);
