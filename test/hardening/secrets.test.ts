/**
 * Secrets: the API key comparison does the same work whatever the presented key (decisions
 * part 5: compared in constant time), and no log line of a full run, nor any stray write to
 * stdout or stderr, ever carries the API key, a wrong key someone presented, or a raw token
 * from a mail (decisions part 4: tokens are stored only as hashes).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keysMatch, verifyApiKey } from '../../functions/http/verify-api-key.ts';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { RecordingLogger } from '../support/fixtures.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  apiPath,
  getPath,
  hardeningSettings,
  postForm,
  postJson,
  putSettings,
  type RawResponse,
  send,
} from './support/harness.ts';

/**
 * Every call of crypto.timingSafeEqual in this process (the unit tests below): the two buffers
 * it compared. The service's own comparisons run in its functions' processes and are seen
 * through test/support/observe-comparisons.mjs.
 */
const compared = vi.hoisted(() => ({ calls: [] as { left: Buffer; right: Buffer }[] }));

// The real module, with timingSafeEqual wrapped to record what it is handed; behaviour is
// unchanged, so the service below runs on the real comparison.
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  const timingSafeEqual = (left: NodeJS.ArrayBufferView, right: NodeJS.ArrayBufferView) => {
    const copy = (view: NodeJS.ArrayBufferView) =>
      Buffer.from(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
    compared.calls.push({ left: copy(left), right: copy(right) });
    return real.timingSafeEqual(left, right);
  };
  return { ...real, timingSafeEqual, default: { ...real, timingSafeEqual } };
});

const KEY = 'Zq3v-9XkP2mWc7RtY4nB8hLd6sGf1jUa';

describe('the key comparison does not stop at the first wrong character', () => {
  const cases: [string, string][] = [
    ['the right key', KEY],
    ['wrong in its first character', `X${KEY.slice(1)}`],
    ['wrong in its last character', `${KEY.slice(0, -1)}X`],
    ['shorter', KEY.slice(0, 5)],
    ['longer', `${KEY}${KEY}`],
    ['empty', ''],
    ['ten thousand characters', 'k'.repeat(10_000)],
  ];

  it('compares two 32-byte digests, never the keys themselves, whatever is presented', () => {
    const results: Record<string, boolean> = {};
    for (const [label, presented] of cases) {
      compared.calls.length = 0;
      results[label] = keysMatch(presented, KEY);
      // Exactly one comparison, of two SHA-256 digests: the same work for every input.
      expect(compared.calls, label).toHaveLength(1);
      const [{ left, right }] = compared.calls as [{ left: Buffer; right: Buffer }];
      expect([left.length, right.length], label).toEqual([32, 32]);
      expect(left.equals(Buffer.from(presented)), label).toBe(false);
      expect(right.equals(Buffer.from(KEY)), label).toBe(false);
    }
    expect(results).toEqual({
      'the right key': true,
      'wrong in its first character': false,
      'wrong in its last character': false,
      shorter: false,
      longer: false,
      empty: false,
      'ten thousand characters': false,
    });
  });

  it('verifyApiKey goes through the same single comparison for a right and a wrong key', async () => {
    const load = async () => KEY;
    for (const [label, presented] of cases.filter(([, key]) => key !== '')) {
      compared.calls.length = 0;
      const verdict = await verifyApiKey(presented, 'required', load, new RecordingLogger());
      expect(
        compared.calls.map((c) => [c.left.length, c.right.length]),
        label,
      ).toEqual([[32, 32]]);
      expect(verdict, label).toEqual(
        presented === KEY ? { trusted: true } : expect.objectContaining({ status: 403 }),
      );
    }
  });
});

/** Everything the functions and this process wrote while the run below went on. */
const captured = { stdout: [] as string[], console: [] as string[] };
const OBSERVER = new URL('../support/observe-comparisons.mjs', import.meta.url).pathname;
const originalWrite = {
  stdout: process.stdout.write.bind(process.stdout),
  stderr: process.stderr.write.bind(process.stderr),
};

function capture(stream: 'stdout' | 'stderr'): typeof process.stdout.write {
  const forward = originalWrite[stream];
  return ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    captured.stdout.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    // NEWSLETTER_TEST_LOGS shows everything, as in the other suites.
    if (process.env.NEWSLETTER_TEST_LOGS)
      return (forward as (...args: unknown[]) => boolean)(chunk, ...rest);
    return true;
  }) as typeof process.stdout.write;
}

let stack: TestStack;

beforeAll(async () => {
  process.stdout.write = capture('stdout');
  process.stderr.write = capture('stderr');
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      captured.console.push(args.map(String).join(' '));
    });
  }
  stack = await startTestStack({ preload: [OBSERVER] });
  putSettings(
    stack.parameters,
    hardeningSettings({ public_rate_limit: { max_requests: 0, window_minutes: 10 } }),
  );
});

afterAll(async () => {
  process.stdout.write = originalWrite.stdout;
  process.stderr.write = originalWrite.stderr;
  vi.restoreAllMocks();
  await stack?.stop();
});

const TOKEN_IN_LINK = /\/subscription\/(?:confirm|unsubscribe)\?token=([A-Za-z0-9_-]{43})/g;

/** A multipart/form-data body written by hand, as an HTML form posts it. */
function multipart(fields: Record<string, string>): { body: string; type: string } {
  const boundary = '----secrets';
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return {
    body: `${parts.join('')}--${boundary}--\r\n`,
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

describe('no secret reaches a log line', () => {
  it('a full run logs neither the key, nor a wrong key presented, nor a token from a mail', async () => {
    const root = stack.apiRoot;
    const key = stack.apiKey;
    const wrongKeys = [
      `${key}x`,
      `x${key.slice(1)}`,
      `${key.slice(0, -1)}Q`,
      'wrong-key-presented-1',
      'wrong-key-presented-2',
      'wrong-key-presented-3',
      'wrong-key-presented-4',
      'wrong-key-presented-5',
    ];
    const answers: { what: string; response: RawResponse }[] = [];
    const call = async (what: string, response: Promise<RawResponse>): Promise<RawResponse> => {
      const answered = await response;
      answers.push({ what, response: answered });
      return answered;
    };
    const mailTokens = async (to: string): Promise<string[]> =>
      (await stack.liveSes.messages())
        .filter((mail) => mail.destination.to.some((address) => address.includes(to)))
        .flatMap((mail) =>
          [...(mail.body.text ?? '').matchAll(TOKEN_IN_LINK)].map((m) => m[1] ?? ''),
        );

    // The subscription process: subscribe, activation link (page and POST), welcome mail,
    // unsubscribe link (page and one-click).
    await call('subscribe', postJson(root, '/subscribe', { email: 'secret-ada@example.com' }));
    const [activation] = await mailTokens('secret-ada@example.com');
    if (!activation) throw new Error('no activation mail');
    const confirmUrl = `${root}/subscription/confirm?token=${activation}`;
    await call('confirm page', getPath(root, confirmUrl));
    await call('confirm', postForm(root, confirmUrl, { token: activation }));
    const leave = (await mailTokens('secret-ada@example.com')).find((t) => t !== activation);
    if (!leave) throw new Error('no welcome mail');
    const unsubscribeUrl = `${root}/subscription/unsubscribe?token=${leave}`;
    await call('unsubscribe page', getPath(root, unsubscribeUrl));
    await call('one-click', postForm(root, unsubscribeUrl, { 'List-Unsubscribe': 'One-Click' }));
    await call('used link', postForm(root, confirmUrl, { token: activation }));

    // Keyed calls with the right key, in every encoding and place the key may travel.
    await call(
      'add',
      postForm(root, '/subscribers/add', { email: 'secret-bob@example.com', api_key: key }),
    );
    const list = multipart({ api_key: key });
    await call(
      'list',
      send(root, {
        method: 'POST',
        path: apiPath(root, '/subscribers'),
        headers: { 'content-type': list.type },
        body: list.body,
      }),
    );
    await call(
      'trusted subscribe',
      postJson(root, '/subscribe', { email: 'secret-cy@example.com', api_key: key, lists: [3] }),
    );
    await call('newsletters', getPath(root, `/newsletters?api_key=${encodeURIComponent(key)}`));
    await call(
      'unsubscribe',
      postJson(root, '/unsubscribe', { email: 'secret-bob@example.com', api_key: key }),
    );
    await call(
      'delete',
      postJson(root, '/subscribers/delete', { email: 'secret-bob@example.com', api_key: key }),
    );

    // Wrong keys, everywhere a key goes, and the key where it does not belong.
    const [w1, w2, w3, w4, w5, w6, w7, w8] = wrongKeys as [string, ...string[]];
    await call('wrong key, list', postJson(root, '/subscribers', { api_key: w1 }));
    await call(
      'wrong key, add',
      postForm(root, '/subscribers/add', { email: 'x@example.com', api_key: w2 ?? '' }),
    );
    await call('wrong key, query', getPath(root, `/newsletters?api_key=${w3}`));
    await call(
      'wrong key, subscribe',
      postJson(root, '/subscribe', { email: 'y@example.com', api_key: w4 }),
    );
    const wrongMultipart = multipart({ api_key: w5 ?? '', email: 'z@example.com' });
    await call(
      'wrong key, multipart',
      send(root, {
        method: 'POST',
        path: apiPath(root, '/unsubscribe'),
        headers: { 'content-type': wrongMultipart.type },
        body: wrongMultipart.body,
      }),
    );
    await call(
      'key in a header',
      send(root, {
        method: 'POST',
        path: apiPath(root, '/subscribers'),
        headers: { authorization: `Bearer ${w6}`, 'x-api-key': key },
      }),
    );
    await call(
      'wrong key, delete',
      postJson(root, '/subscribers/delete', { email: 'secret-cy@example.com', api_key: w7 }),
    );

    // Errors that carry a key or a token: bad parameters, bad bodies, unknown paths, methods.
    await call(
      'invalid email with key',
      postJson(root, '/subscribers/add', { email: `${key}@`, api_key: key }),
    );
    // Ignored, not refused ([params.unknown-profile-field]): the answer is a 200 and the field
    // named in the warning only when shaped like a field id, which a key is not. The request it
    // records is settled here, so its stream processing does not take the parameter-store
    // faults set below.
    await call(
      'unknown profile field',
      postJson(root, '/subscribe', { email: 'p@example.com', [`profile_${w8}`]: key }),
    );
    await stack.settled();
    await call(
      'malformed JSON with key',
      send(root, {
        method: 'POST',
        path: apiPath(root, '/subscribers'),
        headers: { 'content-type': 'application/json' },
        body: `{"api_key": "${key}", `,
      }),
    );
    await call(
      'oversized body with key',
      postJson(root, '/subscribers', { api_key: key, pad: 'A'.repeat(70_000) }),
    );
    await call('unknown path', getPath(root, `/nothing?api_key=${key}&token=${activation}`));
    await call('wrong method', getPath(root, `/subscribe?api_key=${key}`));
    await call(
      'token of one page on the other',
      postForm(root, unsubscribeUrl.replace('unsubscribe?', 'confirm?'), { token: leave }),
    );

    // 503s: the parameter store throttling, SES away; and a 500 from a broken setting.
    stack.cloud.endpoint.setFault('ssm', { kind: 'throttle', count: 6 });
    await call('ssm throttled', postJson(root, '/subscribers', { api_key: key }));
    await call('ssm throttled, wrong key', postJson(root, '/subscribers', { api_key: w1 }));
    stack.cloud.endpoint.setFault('ssm', undefined);
    // SES away: the answer is as usual, and the mailer's failure is logged with its cause.
    await stack.stopSes();
    const failedBefore = stack.logLines.filter((line) => line.includes('"mail_failed"')).length;
    await call('ses down', postJson(root, '/subscribe', { email: 'secret-dee@example.com' }));
    while (stack.logLines.filter((line) => line.includes('"mail_failed"')).length === failedBefore)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await stack.restartSes();
    await stack.settled();
    await call('ses back', postJson(root, '/subscribe', { email: 'secret-dee@example.com' }));
    stack.parameters.put(ENV_DEFAULTS.settingsParameter, JSON.stringify({ lists: 'broken' }));
    await call('broken settings', postJson(root, '/subscribe', { email: 'e@example.com' }));
    putSettings(
      stack.parameters,
      hardeningSettings({ public_rate_limit: { max_requests: 0, window_minutes: 10 } }),
    );

    const statuses = new Set(answers.map((a) => a.response.status));
    // The run covered successes, refusals, errors, 503s and a 500.
    expect([...statuses].sort()).toEqual(
      expect.arrayContaining([200, 400, 403, 404, 405, 500, 503]),
    );
    const tokens = [
      ...new Set(
        (await stack.liveSes.messages()).flatMap((mail) =>
          [...(mail.body.text ?? '').matchAll(TOKEN_IN_LINK)].map((m) => m[1] ?? ''),
        ),
      ),
    ];
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    // One line per request a function answered (API Gateway answers the unknown path
    // itself), so the capture really saw the run.
    const requestLines = stack.logLines.filter((line) => line.includes('"message":"request"'));
    expect(requestLines.length).toBeGreaterThanOrEqual(answers.length - 1);

    // The failures were logged with their causes (so the lines searched below carry them).
    const events = new Set(
      stack.logLines.map((line) => (JSON.parse(line) as { message?: string }).message),
    );
    expect([...events].sort()).toEqual(
      expect.arrayContaining(['api_key_unavailable', 'mail_failed', 'operation_failed']),
    );

    const secrets = [
      ['the API key', key],
      ...wrongKeys.map((wrong, i) => [`wrong key ${i + 1}`, wrong]),
      ...tokens.map((token, i) => [`mail token ${i + 1}`, token]),
    ] as const;
    const everything = [...stack.logLines, ...captured.stdout, ...captured.console];
    const leaks = secrets.flatMap(([what, secret]) =>
      everything
        .filter((line) => line.includes(secret))
        .map((line) => `${what}: ${line.slice(0, 200)}`),
    );
    expect(leaks).toEqual([]);
    // Nor does any answer carry the key (link pages carry their own token, by design).
    expect(answers.filter((a) => a.response.text.includes(key)).map((a) => a.what)).toEqual([]);
    // The service compared every key it was shown (13 requests presented a key that reached
    // the check: 6 right, 7 wrong) and the link tokens, and every comparison was of
    // fixed-length digests: 32-byte key digests, 64-character token hashes.
    const observed = stack.logLines
      .filter((line) => line.startsWith('{"observed":"timingSafeEqual"'))
      .map((line) => JSON.parse(line) as { left: number; right: number });
    const keyComparisons = observed.filter((c) => c.left === 32 && c.right === 32);
    const tokenComparisons = observed.filter((c) => c.left === 64 && c.right === 64);
    expect(keyComparisons.length).toBeGreaterThanOrEqual(13);
    expect(tokenComparisons.length).toBeGreaterThan(0);
    expect(observed.length).toBe(keyComparisons.length + tokenComparisons.length);

    process.stdout.write = originalWrite.stdout;
    process.stderr.write = originalWrite.stderr;
    vi.restoreAllMocks();
    console.log(
      `[hardening] secrets: ${answers.length} requests (statuses ${[...statuses].sort().join(', ')}), ` +
        `${stack.logLines.length} function log lines + ${captured.stdout.length} stdout/stderr writes + ${captured.console.length} console calls ` +
        `searched for ${secrets.length} secrets (the key, ${wrongKeys.length} wrong keys, ${tokens.length} mail tokens): ${leaks.length} found; ` +
        `${observed.length} constant-time comparisons by the service (${keyComparisons.length} of key digests, ${tokenComparisons.length} of token hashes), all of equal-length digests`,
    );
  }, 120_000);
});
