/**
 * What the hardening suites share: raw HTTP against the local service (any method, any body,
 * any header, any source address), full dumps of the table, the integrity checks every suite
 * ends with (no orphan token, no orphan index entry), and the JSON error shape of decisions
 * part 6. Kept apart from test/e2e/support on purpose: these tests send requests fetch refuses
 * to send (GET with a body, no content type, a chosen local address).
 */
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DEMO_SETTINGS } from '../../../infra/local/demo-data.ts';
import type { ParameterStore } from '../../../infra/local/stand-ins/parameter-store.ts';
import { SUBSCRIBER_INDEX_PARTITIONS } from '../../../shared/adapters/store/subscriber-index.ts';
import { fromSubscriberItem } from '../../../shared/adapters/store/subscriber-item.ts';
import { INDEX, keys } from '../../../shared/adapters/store/table-design.ts';
import type { SettingsInput } from '../../../shared/domain/settings-schema.ts';
import { countChanges } from '../../../shared/domain/subscriber-counts.ts';
import { ENV_DEFAULTS } from '../../../shared/runtime/environment.ts';

/** One item of the table, as the document client returns it. */
export type Item = Record<string, unknown>;

/** A request exactly as it goes on the wire. */
export interface RawRequest {
  readonly method: string;
  /** Path and query, sent verbatim (no normalisation, no encoding). */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer | string;
  /** Source address on the loopback network, so each test can be its own client IP. */
  readonly localAddress?: string;
}

/** An answer, read completely. */
export interface RawResponse {
  readonly status: number;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

// Keep-alive with a bound: thousands of requests must not each pay a TCP handshake, nor open
// thousands of sockets on a two-core machine.
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Sends one request over HTTP/1.1 to `origin` and reads the whole answer. */
export function send(origin: string, raw: RawRequest): Promise<RawResponse> {
  const url = new URL(origin);
  const body = raw.body === undefined ? undefined : Buffer.from(raw.body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: raw.method,
        path: raw.path,
        headers: {
          ...raw.headers,
          ...(body === undefined ? {} : { 'content-length': String(body.length) }),
        },
        // A chosen source address needs its own socket; the pool's sockets carry 127.0.0.1.
        ...(raw.localAddress ? { localAddress: raw.localAddress, agent: false } : { agent }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** A path below the API root, e.g. `/subscribe`, as the server sees it. */
export function apiPath(apiRoot: string, path: string): string {
  return `${new URL(apiRoot).pathname}${path}`;
}

/** POSTs a JSON body (keyless unless it carries `api_key`). */
export function postJson(
  apiRoot: string,
  path: string,
  body: unknown,
  localAddress?: string,
): Promise<RawResponse> {
  return send(apiRoot, {
    method: 'POST',
    path: apiPath(apiRoot, path),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(localAddress ? { localAddress } : {}),
  });
}

/** POSTs form fields (the way an HTML form on a page does). */
export function postForm(
  apiRoot: string,
  pathOrUrl: string,
  fields: Readonly<Record<string, string>>,
): Promise<RawResponse> {
  const target = /^https?:/.test(pathOrUrl) ? new URL(pathOrUrl) : undefined;
  return send(apiRoot, {
    method: 'POST',
    path: target ? `${target.pathname}${target.search}` : apiPath(apiRoot, pathOrUrl),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** GETs an absolute URL or a path below the API root. */
export function getPath(apiRoot: string, pathOrUrl: string): Promise<RawResponse> {
  const target = /^https?:/.test(pathOrUrl) ? new URL(pathOrUrl) : undefined;
  return send(apiRoot, {
    method: 'GET',
    path: target ? `${target.pathname}${target.search}` : apiPath(apiRoot, pathOrUrl),
  });
}

/** The JSON error body of decisions part 6, or a list of what is wrong with it. */
export function errorShapeProblems(response: RawResponse): string[] {
  const problems: string[] = [];
  if (!response.contentType.startsWith('application/json')) {
    problems.push(`content-type ${response.contentType || '(none)'} is not JSON`);
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return [`body is not JSON: ${response.text.slice(0, 80)}`];
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['not an object'];
  const record = body as Record<string, unknown>;
  const keys = Object.keys(record).sort().join(',');
  if (keys !== 'code,data,message') problems.push(`keys ${keys}`);
  if (typeof record.code !== 'string' || !/^[a-z_]+$/.test(record.code))
    problems.push(`code ${String(record.code)}`);
  if (typeof record.message !== 'string' || record.message.length === 0)
    problems.push('message missing');
  const data = record.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null) problems.push('data missing');
  else {
    if (data.status !== response.status) problems.push(`data.status ${String(data.status)}`);
    const extra = Object.keys(data).filter((key) => key !== 'status' && key !== 'request_id');
    if (extra.length) problems.push(`data has ${extra.join(',')}`);
  }
  return problems;
}

/** The settings every hardening file starts from: the demo settings `npm start` seeds. */
export function hardeningSettings(patch: Partial<SettingsInput> = {}): SettingsInput {
  return { ...DEMO_SETTINGS, ...patch };
}

/** Writes the settings parameter; with a parameter cache of 0 the next request sees them. */
export function putSettings(parameters: ParameterStore, settings: SettingsInput): void {
  parameters.put(ENV_DEFAULTS.settingsParameter, JSON.stringify(settings));
}

/**
 * A small public rate limit for a test that calls up to it: `window_minutes` of a whole day.
 * The limit counts in fixed windows of the real clock (shared/operations/rate-limit.ts), so a
 * test whose calls straddle two windows would see the count start again, by the time of day
 * alone (a 10-minute window once turned up a 200 where a 429 was due, at 14:00). Before the
 * first counted call this waits, if need be, until the day's window has `neededMs` left (so a
 * test calling it allows itself a minute more than it needs).
 */
export async function limitedForOneWindow(
  parameters: ParameterStore,
  maxRequests: number,
  neededMs = 60_000,
): Promise<void> {
  const windowMinutes = 24 * 60;
  const windowMs = windowMinutes * 60_000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < neededMs) await sleep(left + 1_000);
  putSettings(
    parameters,
    hardeningSettings({
      public_rate_limit: { max_requests: maxRequests, window_minutes: windowMinutes },
    }),
  );
}

export { documentClient } from '../../support/local-dynamo.ts';

const itemKey = (item: Item): string => `${String(item.pk)}|${String(item.sk)}`;

/** Every item of the table, strongly consistent, sorted by key so two dumps compare. */
export async function dumpTable(client: DynamoDBDocumentClient, table: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.sort((a, b) => (itemKey(a) < itemKey(b) ? -1 : itemKey(a) > itemKey(b) ? 1 : 0));
}

/** Every subscriber entry of the `recent` index (all pages). */
export async function recentIndexSubscribers(
  client: DynamoDBDocumentClient,
  table: string,
): Promise<Item[]> {
  const items: Item[] = [];
  // Every partition subscribers are spread over, the legacy one included.
  for (const partition of SUBSCRIBER_INDEX_PARTITIONS) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: INDEX.recent.name,
          KeyConditionExpression: '#kind = :kind',
          ExpressionAttributeNames: { '#kind': INDEX.recent.partition },
          ExpressionAttributeValues: { ':kind': partition },
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return items;
}

/** Items by key, for diffs. */
export function byKey(items: readonly Item[]): Map<string, Item> {
  return new Map(items.map((item) => [itemKey(item), item]));
}

/** Keys whose item differs between two dumps (added, removed or changed). */
export function changedKeys(before: readonly Item[], after: readonly Item[]): string[] {
  const a = byKey(before);
  const b = byKey(after);
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((key) => JSON.stringify(a.get(key)) !== JSON.stringify(b.get(key)));
}

/**
 * What must hold of the table whatever happened: every token item belongs to a subscriber that
 * lists its hash, every hash a subscriber lists has its token item, a subscriber's live
 * activation token is among its tokens, ids are unique, the `recent` index shows exactly
 * the subscribers the table holds, the list index exactly their confirmed memberships, and
 * the subscriber counts exactly what they add up to. Returns the violations (empty when all
 * is well).
 */
export function integrityProblems(items: readonly Item[], index: readonly Item[]): string[] {
  const problems: string[] = [];
  const subscribers = new Map<string, Item>();
  const tokens = new Map<string, Item>();
  /** The list index: `<list>:<id>` to the address the entry holds. */
  const members = new Map<string, string>();
  for (const item of items) {
    const pk = String(item.pk);
    if (pk.startsWith('SUBSCRIBER#')) subscribers.set(pk.slice('SUBSCRIBER#'.length), item);
    if (pk.startsWith('TOKEN#')) tokens.set(pk.slice('TOKEN#'.length), item);
    if (pk.startsWith('MEMBERS#'))
      members.set(`${pk.split('#')[1]}:${Number(item.sk)}`, String(item.email));
  }
  // [campaign.plan] The list index holds exactly every list of every confirmed subscriber.
  const expectedMembers = new Map<string, string>();
  for (const [email, subscriber] of subscribers)
    if (subscriber.status === 'C')
      for (const list of (subscriber.lists ?? []) as number[])
        expectedMembers.set(`${list}:${Number(subscriber.id)}`, email);
  for (const [entry, email] of members)
    if (expectedMembers.get(entry) !== email)
      problems.push(`list index entry ${entry} (${email}): no such confirmed member`);
  for (const [entry, email] of expectedMembers)
    if (!members.has(entry)) problems.push(`list index: ${email} missing as ${entry}`);
  for (const [hash, token] of tokens) {
    const owner = subscribers.get(String(token.email));
    if (!owner) problems.push(`token ${hash.slice(0, 8)} of ${token.email}: no subscriber`);
    else if (!(hash in ((owner.tokens ?? {}) as Record<string, number>)))
      problems.push(`token ${hash.slice(0, 8)} of ${token.email}: not listed by the subscriber`);
  }
  const ids = new Set<number>();
  for (const [email, subscriber] of subscribers) {
    if (subscriber.email !== email) problems.push(`subscriber ${email}: email attribute differs`);
    const listed = Object.keys((subscriber.tokens ?? {}) as Record<string, number>);
    for (const hash of listed) {
      const token = tokens.get(hash);
      if (!token) problems.push(`subscriber ${email}: listed token ${hash.slice(0, 8)} missing`);
      else if (token.email !== email)
        problems.push(`subscriber ${email}: token ${hash.slice(0, 8)} names ${token.email}`);
    }
    const confirm = subscriber.confirm_token;
    if (typeof confirm === 'string' && !listed.includes(confirm))
      problems.push(`subscriber ${email}: confirm token not among its tokens`);
    const id = Number(subscriber.id);
    if (ids.has(id)) problems.push(`subscriber ${email}: id ${id} used twice`);
    ids.add(id);
  }
  const indexed = new Map<string, number>();
  for (const entry of index) {
    const email = String(entry.email);
    indexed.set(email, (indexed.get(email) ?? 0) + 1);
    if (!subscribers.has(email)) problems.push(`index entry ${email}: no subscriber`);
  }
  for (const [email, count] of indexed)
    if (count > 1) problems.push(`index lists ${email} ${count} times`);
  for (const email of subscribers.keys())
    if (!indexed.has(email)) problems.push(`subscriber ${email}: missing from the index`);
  problems.push(...countProblems(items, subscribers));
  return problems;
}

/**
 * [v2.paging-counts] The subscriber counts hold exactly what the counted subscribers add up
 * to, each counted from scratch: no change was lost or counted twice. A cell is summed over
 * the count shards, as a read sums it (the stream's reader picks a shard per batch); a caller
 * lets the stream settle first.
 */
function countProblems(items: readonly Item[], subscribers: ReadonlyMap<string, Item>): string[] {
  const summed = new Map<string, Record<string, number>>();
  for (const item of items) {
    if (!String(item.pk).startsWith('COUNTS#')) continue;
    const cell = summed.get(String(item.sk)) ?? {};
    for (const [attribute, value] of Object.entries(item))
      if (typeof value === 'number') cell[attribute] = (cell[attribute] ?? 0) + value;
    summed.set(String(item.sk), cell);
  }
  const stored = new Map<string, Record<string, number>>();
  for (const [name, cell] of summed) {
    const numbers = Object.entries(cell).filter(([, value]) => value !== 0);
    if (numbers.length > 0) stored.set(name, Object.fromEntries(numbers));
  }
  const expected = new Map<string, Record<string, number>>();
  for (const item of subscribers.values()) {
    const record = fromSubscriberItem(item);
    if (record.uncounted) continue;
    for (const change of countChanges(undefined, record)) {
      const key =
        change.cell.kind === 'kept'
          ? keys.keptCount(0, change.cell.block)
          : keys.expiringCount(0, change.cell.hour, change.cell.block);
      const name = key.sk;
      const cell = expected.get(name) ?? {};
      for (const [attribute, amount] of Object.entries(change.add))
        cell[attribute] = (cell[attribute] ?? 0) + amount;
      expected.set(name, cell);
    }
  }
  const problems: string[] = [];
  for (const name of new Set([...stored.keys(), ...expected.keys()])) {
    const has = JSON.stringify(Object.entries(stored.get(name) ?? {}).sort());
    const should = JSON.stringify(Object.entries(expected.get(name) ?? {}).sort());
    if (has !== should) problems.push(`counts ${name}: ${has}, expected ${should}`);
  }
  return problems;
}

/** Dumps the table and its index and checks integrity in one go. */
export async function checkIntegrity(
  client: DynamoDBDocumentClient,
  table: string,
): Promise<{ items: Item[]; problems: string[] }> {
  const items = await dumpTable(client, table);
  const index = await recentIndexSubscribers(client, table);
  return { items, problems: integrityProblems(items, index) };
}

/** Counts occurrences into a record, for the summary lines. */
export function tally(counts: Record<string, number>, key: string | number): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** `1,234` style, for summary lines a person reads. */
export const figure = (n: number): string => n.toLocaleString('en-US');

/** Runs `work` over `items` with at most `width` at a time; results in input order. */
export async function inPool<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}
