/**
 * Launch day on DynamoDB as it really is (issue 46): the whole stack, as deployed, on the strict
 * DynamoDB front with its per-partition limits divided by 20, so the hundred-odd writes a
 * second this machine makes meet the pressure AWS meets at 2,000 sign-ups a second. Bursts of
 * new subscribers, keyed and keyless, and of unsubscribes: no call answers 5xx, no address that
 * was free is called existing, nobody is lost, and the counts and the list index come out
 * exact. Before the hot keys were designed away (one index partition for every subscriber, one
 * counter write per id, count items in every create), these bursts ended in 503s and in new
 * addresses answered `email_exists`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  apiPath,
  checkIntegrity,
  documentClient,
  hardeningSettings,
  postJson,
  putSettings,
  type RawResponse,
  send,
  tally,
} from './support/harness.ts';

// Hundreds of calls through the whole local stack, and the stream worked off after them.
vi.setConfig({ testTimeout: 240_000 });

/** The divisor of DynamoDB's per-partition limits: 1,000 WCU a second become 50. */
const SCALE = 20;
/** Calls in flight at once: a form's visitors, an integration's workers. */
const CONCURRENCY = 32;

let stack: TestStack;
let db: ReturnType<typeof documentClient>;
/** A v2 write key's credentials, as a query string. */
let v2Credentials: string;
const summary: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({ strictDynamoDb: { scale: SCALE } });
  putSettings(
    stack.parameters,
    hardeningSettings({ public_rate_limit: { max_requests: 1_000, window_minutes: 10 } }),
  );
  db = documentClient(stack.dynamo.endpoint);
  const keys = new DynamoClientKeyStore(db, stack.tableName);
  const created = await createClientKey({ keys, now: () => new Date() }, 'burst', 'write');
  if (isNewsletterError(created)) throw new Error(created.message);
  v2Credentials = `client_key=${created.record.client_key}&client_secret=${created.clientSecret}`;
});

const v2Root = () => stack.apiRoot.replace(/\/v1$/, '/v2');

/** A v2 call with the write key, as the original's clients send it (in the query string). */
const postV2 = (path: string, body: unknown): Promise<RawResponse> =>
  send(v2Root(), {
    method: 'POST',
    path: `${apiPath(v2Root(), path)}?${v2Credentials}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

afterAll(async () => {
  const refused = stack?.strictDynamoDb?.stats;
  console.log(
    `[hardening] contention (scale ${SCALE}): ${summary.join('; ')}; the front refused ${JSON.stringify(refused)}`,
  );
  db?.destroy();
  await stack?.stop();
});

/** Runs `call` for every item, `CONCURRENCY` at a time. */
async function inFlight<T>(
  items: readonly T[],
  call: (item: T) => Promise<RawResponse>,
): Promise<RawResponse[]> {
  const answers: RawResponse[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const at = next++;
        answers[at] = await call(items[at] as T);
      }
    }),
  );
  return answers;
}

/**
 * What the front refused since `before`: at these rates no partition key value may reach its
 * limit and no two writes may meet on one item, since none of these calls share an address.
 */
function refusedSince(before: Record<string, number>): Record<string, number> {
  const now = stack.strictDynamoDb?.stats;
  if (!now) throw new Error('the strict DynamoDB front is off');
  const { conflicts, cancelledForConflict, throttledWrites, throttledReads, unprocessed } = now;
  const after: Record<string, number> = {
    conflicts,
    cancelledForConflict,
    throttledWrites,
    throttledReads,
    unprocessed,
  };
  return Object.fromEntries(
    Object.entries(after).map(([name, value]) => [name, value - (before[name] ?? 0)]),
  );
}

const noneRefused = {
  conflicts: 0,
  cancelledForConflict: 0,
  throttledWrites: 0,
  throttledReads: 0,
  unprocessed: 0,
};

/** The front's figures now, to compare with after a burst. */
const frontNow = (): Record<string, number> => ({ ...(stack.strictDynamoDb?.stats ?? {}) });

const statuses = (answers: readonly RawResponse[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const answer of answers) tally(counts, answer.status);
  return counts;
};

/** The subscribers as stored, by address. */
async function stored(): Promise<Map<string, Record<string, unknown>>> {
  const { items } = await checkIntegrity(db, stack.tableName);
  return new Map(
    items
      .filter((item) => String(item.pk).startsWith('SUBSCRIBER#'))
      .map((item) => [String(item.email), item]),
  );
}

describe('[contention] bursts on DynamoDB with its partition limits', () => {
  it('a burst of keyed creates, v1 and v2: every one 200 or 201, stored once, none called existing', async () => {
    const emails = Array.from({ length: 240 }, (_, index) => `keyed-${index}@example.com`);
    const before = frontNow();
    const answers = await inFlight(emails, (email) =>
      emails.indexOf(email) % 2 === 0
        ? postJson(stack.apiRoot, '/subscribers/add', {
            email,
            lists: [1],
            api_key: stack.apiKey,
          })
        : postV2('/subscribers', { email, lists: [1], status: 'confirmed' }),
    );
    summary.push(`keyed creates ${JSON.stringify(statuses(answers))}`);
    expect(answers.filter((answer) => answer.status >= 300).map((a) => a.text)).toEqual([]);
    await stack.settled();
    const subscribers = await stored();
    for (const email of emails) expect(subscribers.get(email)?.status).toBe('C');
    const ids = emails.map((email) => Number(subscribers.get(email)?.id));
    expect(new Set(ids).size).toBe(emails.length);
    expect((await checkIntegrity(db, stack.tableName)).problems).toEqual([]);
    expect(refusedSince(before)).toEqual(noneRefused);
  });

  it('a burst of keyless sign-ups from many addresses: every one answered, stored and sent one activation', async () => {
    const emails = Array.from({ length: 200 }, (_, index) => `keyless-${index}@example.com`);
    const before = frontNow();
    const answers = await inFlight(emails, (email) => {
      const index = emails.indexOf(email);
      // Forty visitors' addresses, five sign-ups each, half through each API.
      const client = `127.0.1.${(index % 40) + 2}`;
      return index % 2 === 0
        ? postJson(stack.apiRoot, '/subscribe', { email, lists: [1] }, client)
        : postJson(v2Root(), '/subscriptions', { email, lists: [1] }, client);
    });
    summary.push(`keyless sign-ups ${JSON.stringify(statuses(answers))}`);
    expect(answers.filter((answer) => answer.status >= 300).map((a) => a.text)).toEqual([]);
    await stack.settled();
    const subscribers = await stored();
    for (const email of emails) expect(subscribers.get(email)?.status).toBe('S');
    const activations = new Map<string, number>();
    for (const mail of await stack.liveSes.messages())
      for (const to of mail.destination.to)
        if (to.startsWith('keyless-')) activations.set(to, (activations.get(to) ?? 0) + 1);
    expect(emails.filter((email) => activations.get(email) !== 1)).toEqual([]);
    expect((await checkIntegrity(db, stack.tableName)).problems).toEqual([]);
    expect(refusedSince(before)).toEqual(noneRefused);
  });

  it('a burst of unsubscribes: every one 200, every one U, the list index without them', async () => {
    const emails = Array.from({ length: 120 }, (_, index) => `leaving-${index}@example.com`);
    await inFlight(emails, (email) =>
      postJson(stack.apiRoot, '/subscribers/add', { email, lists: [1, 2], api_key: stack.apiKey }),
    );
    await stack.settled();
    const before = frontNow();
    const answers = await inFlight(emails, (email) =>
      postJson(stack.apiRoot, '/unsubscribe', { email, api_key: stack.apiKey }),
    );
    summary.push(`unsubscribes ${JSON.stringify(statuses(answers))}`);
    expect(answers.filter((answer) => answer.status !== 200).map((a) => a.text)).toEqual([]);
    await stack.settled();
    const subscribers = await stored();
    for (const email of emails) expect(subscribers.get(email)?.status).toBe('U');
    expect((await checkIntegrity(db, stack.tableName)).problems).toEqual([]);
    expect(refusedSince(before)).toEqual(noneRefused);
  });
});
