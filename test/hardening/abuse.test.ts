/**
 * Abuse of the public subscribe form over HTTP against the local service (decisions part 4,
 * docs/behaviour.md): nobody can flood a mailbox (one activation mail per cooldown), one
 * client cannot flood the service (per-IP limit, 429), bots that fill the honeypot are told
 * nothing, and the answer is the same whatever the address's state, so the form cannot be
 * used to learn who is subscribed. Each test is its own client: a loopback address of its own.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredMail } from '../../infra/local/stand-ins/ses-local.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  apiPath,
  changedKeys,
  documentClient,
  dumpTable,
  errorShapeProblems,
  hardeningSettings,
  limitedForOneWindow,
  postJson,
  putSettings,
  type RawResponse,
  send,
} from './support/harness.ts';

// The bursts go through the whole local stack: the 50 cooldowns take about 20 s on an idle
// 2-core machine and several times that beside another test run. What they count (mails,
// 429s, answers) comes from the settings' windows and caps, minutes long, not from speed.
vi.setConfig({ testTimeout: 180_000 });

let stack: TestStack;
let db: ReturnType<typeof documentClient>;
const summary: string[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  putSettings(
    stack.parameters,
    hardeningSettings({ public_rate_limit: { max_requests: 1_000, window_minutes: 10 } }),
  );
  db = documentClient(stack.dynamo.endpoint);
});

afterAll(async () => {
  console.log(`[hardening] abuse: ${summary.join('; ')}`);
  db?.destroy();
  await stack?.stop();
});

let clients = 1;
/** A client address of its own (127.0.0.2, .3, …), so per-IP counters never mix. */
function newClient(): string {
  clients += 1;
  return `127.0.0.${clients}`;
}

const subscribe = (body: Record<string, unknown>, client: string, headers = {}) =>
  send(stack.apiRoot, {
    method: 'POST',
    path: apiPath(stack.apiRoot, '/subscribe'),
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    localAddress: client,
  });

/** The table once the stream has applied what the calls so far recorded. */
async function settledTable() {
  await stack.settled();
  return dumpTable(db, stack.tableName);
}

async function mailsTo(email: string): Promise<StoredMail[]> {
  return (await stack.liveSes.messages()).filter((mail) =>
    mail.destination.to.some((to) => to.includes(email)),
  );
}

const activationsTo = async (email: string) =>
  (await mailsTo(email)).filter((mail) => mail.subject === 'Please confirm your subscription');

const subscriber = async (email: string) =>
  (await settledTable()).find((item) => item.pk === `SUBSCRIBER#${email}`);

describe('resend cooldown', () => {
  it('20 rapid subscribes of one address send exactly one activation mail and get 20 identical answers', async () => {
    const client = newClient();
    const email = 'flood-me@example.com';
    // Ten at once, then ten one after the other.
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => subscribe({ email, name: 'Flood' }, client)),
    );
    const serial: RawResponse[] = [];
    for (let i = 0; i < 10; i += 1) serial.push(await subscribe({ email }, client));
    const answers = [...burst, ...serial];
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(JSON.parse(answers[0]?.text ?? '')).toEqual({ email, status: 'pending' });
    expect(await activationsTo(email)).toHaveLength(1);
    const stored = await subscriber(email);
    expect(stored?.status).toBe('S');
    expect(Object.keys(stored?.tokens as object)).toHaveLength(1);
    summary.push('20 rapid subscribes of one address → 1 activation mail, 20 identical 200s');
  });
});

describe('activation cap', () => {
  it('[subscribe.activation-cap] one address driven through 50 cooldowns from 50 client addresses gets at most 3 activation mails', async () => {
    const email = 'bomb-target@example.com';
    const answers: RawResponse[] = [];
    for (let round = 0; round < 50; round += 1) {
      answers.push(await subscribe({ email, name: `Spam ${round}` }, newClient()));
      await stack.settled();
      // As if the cooldown had passed since the last activation (the rounds stay inside one
      // day: 50 cooldowns of 10 minutes are about 8 hours).
      await db.send(
        new UpdateCommand({
          TableName: stack.tableName,
          Key: { pk: `SUBSCRIBER#${email}`, sk: 'subscriber' },
          UpdateExpression: 'SET activation_sent_at = activation_sent_at - :cooldown',
          ConditionExpression: 'attribute_exists(activation_sent_at)',
          ExpressionAttributeValues: { ':cooldown': 11 * 60_000 },
        }),
      );
    }
    expect(new Set(answers.map((answer) => `${answer.status} ${answer.text}`))).toEqual(
      new Set([`200 ${JSON.stringify({ email, status: 'pending' })}`]),
    );
    // The documented default cap: 3 per rolling 24 hours, the first mail included.
    expect(await activationsTo(email)).toHaveLength(3);
    // Nothing the callers sent was stored: the name is the first call's, never a later one's.
    expect((await subscriber(email))?.name).toBe('Spam 0');
    summary.push('50 cooldowns from 50 addresses → 3 activation mails');
  });
});

describe('per-client rate limit', () => {
  it('answers 429 after the configured number of calls, per client, whatever the headers say', async () => {
    await limitedForOneWindow(stack.parameters, 5);
    try {
      const client = newClient();
      for (let i = 0; i < 5; i += 1) {
        const ok = await subscribe({ email: `limit-${i}@example.com` }, client);
        expect(ok.status, ok.text).toBe(200);
      }
      const before = await settledTable();
      const refused: RawResponse[] = [];
      refused.push(await subscribe({ email: 'limit-5@example.com' }, client));
      // A forged X-Forwarded-For is not a new client: the limit counts the connection's IP.
      refused.push(
        await subscribe({ email: 'limit-6@example.com' }, client, {
          'x-forwarded-for': '198.51.100.77',
        }),
      );
      // The same address again (already stored) is still a call that counts.
      refused.push(await subscribe({ email: 'limit-0@example.com' }, client));
      for (const answer of refused) {
        expect(answer.status).toBe(429);
        expect(errorShapeProblems(answer)).toEqual([]);
        expect(JSON.parse(answer.text)).toMatchObject({ code: 'rate_limited' });
      }
      // Refused calls wrote nothing, and sent nothing.
      expect(changedKeys(before, await settledTable())).toEqual([]);
      expect(await mailsTo('limit-5@example.com')).toHaveLength(0);

      // Another client is not affected; the key holder is never limited.
      expect((await subscribe({ email: 'limit-other@example.com' }, newClient())).status).toBe(200);
      const keyed = await subscribe(
        { email: 'limit-7@example.com', api_key: stack.apiKey },
        client,
      );
      expect(keyed.status).toBe(200);

      // Rejected input does not use up a client's budget.
      const careful = newClient();
      for (let i = 0; i < 10; i += 1)
        expect((await subscribe({ email: `not-an-address-${i}` }, careful)).status).toBe(400);
      for (let i = 0; i < 5; i += 1)
        expect((await subscribe({ email: `careful-${i}@example.com` }, careful)).status).toBe(200);
      expect((await subscribe({ email: 'careful-5@example.com' }, careful)).status).toBe(429);
      summary.push(
        'limit 5: calls 6-8 from one client → 429 (forged X-Forwarded-For too), table unchanged; other client and keyed calls 200; 10 rejected calls used no budget',
      );
    } finally {
      putSettings(
        stack.parameters,
        hardeningSettings({ public_rate_limit: { max_requests: 1_000, window_minutes: 10 } }),
      );
    }
  });
});

describe('honeypot', () => {
  it('a filled honeypot gets the usual answer and changes and sends nothing, in every encoding', async () => {
    const client = newClient();
    const normal = await subscribe({ email: 'person@example.com' }, client);
    expect(normal.status).toBe(200);
    const before = await settledTable();
    const email = 'bot@example.com';
    const bodies: { type: string; body: string }[] = [
      {
        type: 'application/json',
        body: JSON.stringify({ email, nl_website: 'http://spam.example' }),
      },
      {
        type: 'application/x-www-form-urlencoded',
        body: `email=${encodeURIComponent(email)}&nl_website=x`,
      },
      {
        type: 'multipart/form-data; boundary=b',
        body: `--b\r\nContent-Disposition: form-data; name="email"\r\n\r\n${email}\r\n--b\r\nContent-Disposition: form-data; name="nl_website"\r\n\r\n1\r\n--b--\r\n`,
      },
      // A bot filling the honeypot for an address that is already on the list.
      {
        type: 'application/json',
        body: JSON.stringify({ email: 'person@example.com', nl_website: 'y' }),
      },
    ];
    for (const { type, body } of bodies) {
      const answer = await send(stack.apiRoot, {
        method: 'POST',
        path: apiPath(stack.apiRoot, '/subscribe'),
        headers: { 'content-type': type },
        body,
        localAddress: client,
      });
      expect(answer.status).toBe(200);
      const expected = JSON.parse(body.startsWith('{') ? body : '{}').email ?? email;
      expect(JSON.parse(answer.text)).toEqual({ email: expected, status: 'pending' });
    }
    expect(changedKeys(before, await settledTable())).toEqual([]);
    expect(await mailsTo(email)).toHaveLength(0);
    expect(await activationsTo('person@example.com')).toHaveLength(1);
    summary.push(
      'honeypot filled (JSON, form, multipart, known address) → usual 200, table unchanged, 0 mails',
    );
  });
});

describe('the answer does not tell who is subscribed', () => {
  it('[subscribe.keyless-async] new, pending, confirmed, unsubscribed, bounced and complained addresses get byte-identical answers', async () => {
    // Same-length addresses, so even Content-Length cannot differ.
    const addresses = {
      new: 'state-new@example.com',
      S: 'state-sss@example.com',
      C: 'state-ccc@example.com',
      U: 'state-uuu@example.com',
      B: 'state-bbb@example.com',
      P: 'state-ppp@example.com',
    } as const;
    const key = stack.apiKey;
    const setupClient = newClient();
    expect((await subscribe({ email: addresses.S }, setupClient)).status).toBe(200);
    for (const email of [addresses.C, addresses.U, addresses.B, addresses.P])
      expect(
        (await postJson(stack.apiRoot, '/subscribers/add', { email, api_key: key })).status,
      ).toBe(200);
    expect(
      (await postJson(stack.apiRoot, '/unsubscribe', { email: addresses.U, api_key: key })).status,
    ).toBe(200);
    // Bounce and complaint feedback is not an API call; set the status as it would.
    for (const [email, status] of [
      [addresses.B, 'B'],
      [addresses.P, 'P'],
    ] as const) {
      await db.send(
        new UpdateCommand({
          TableName: stack.tableName,
          Key: { pk: `SUBSCRIBER#${email}`, sk: 'subscriber' },
          UpdateExpression: 'SET #status = :status, #version = #version + :one',
          ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
          ExpressionAttributeValues: { ':status': status, ':one': 1 },
        }),
      );
    }
    const mailsBefore = Object.fromEntries(
      await Promise.all(
        Object.values(addresses).map(async (email) => [email, (await mailsTo(email)).length]),
      ),
    ) as Record<string, number>;

    const client = newClient();
    const answers: Record<string, RawResponse> = {};
    for (const [state, email] of Object.entries(addresses))
      answers[state] = await subscribe({ email, name: 'Probe' }, client);

    const normalised = (answer: RawResponse, email: string) => ({
      status: answer.status,
      body: answer.text.replace(email, '<email>'),
      headers: Object.entries(answer.headers)
        // The date and API Gateway's per-request id differ by nature, for every address alike.
        .filter(([name]) => name !== 'date' && name !== 'x-amzn-requestid')
        .sort(([a], [b]) => a.localeCompare(b)),
    });
    const shapes = Object.entries(addresses).map(([state, email]) =>
      JSON.stringify(normalised(answers[state] as RawResponse, email)),
    );
    expect(new Set(shapes).size).toBe(1);
    expect(answers.new?.status).toBe(200);
    expect(JSON.parse(answers.new?.text ?? '')).toEqual({
      email: addresses.new,
      status: 'pending',
    });

    // Behind the identical answers the paths differ, as decided: only new and U get a mail,
    // and B, P and C are left exactly as they were.
    const newMails = async (email: string) =>
      (await mailsTo(email)).length - (mailsBefore[email] ?? 0);
    expect(await newMails(addresses.new)).toBe(1);
    expect(await newMails(addresses.U)).toBe(1);
    expect(await newMails(addresses.S)).toBe(0);
    expect(await newMails(addresses.C)).toBe(0);
    expect(await newMails(addresses.B)).toBe(0);
    expect(await newMails(addresses.P)).toBe(0);
    // [subscribe.keyless-no-rewrite] The opt-out stands until the activation link is confirmed.
    expect((await subscriber(addresses.U))?.status).toBe('U');
    expect((await subscriber(addresses.C))?.status).toBe('C');
    expect((await subscriber(addresses.B))?.status).toBe('B');
    expect((await subscriber(addresses.P))?.status).toBe('P');
    summary.push(
      'new/S/C/U/B/P addresses → 6 byte-identical answers (status, headers, body), mails only to new and U',
    );
  });
});
