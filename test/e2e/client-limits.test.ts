/**
 * [http.client-limits] One client cannot shut a route for everyone. A deployment of its own
 * (`cdk synth` with small limits), run as deployed: the distribution's and the stage's web
 * ACLs count each client address in their rate-based rules (sign-up, unsubscribe, everything
 * else) and refuse the one over a limit with a 429 in the API's error shape, before any
 * function; API Gateway's throttles keep a bucket per method, so a flood of sign-ups from many
 * addresses answers 429 on the sign-up methods only, and one-click unsubscribe goes on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LocalWebAcl } from '../../infra/local/cloud/web-acl.ts';
import { synthesize } from '../../infra/local/synthesize.ts';
import {
  apiPath,
  errorShapeProblems,
  hardeningSettings,
  inPool,
  putSettings,
  type RawResponse,
  send,
} from '../hardening/support/harness.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/** The web ACLs' limits of this deployment, per client address and minute. */
const LIMITS = { signUp: 10, unsubscribe: 10, api: 30, windowSeconds: 60 };
/** The sign-up methods' throttle: a burst of 20, then one a second. */
const SIGN_UP_BURST = 20;

let scratch: string;
let stack: TestStack;
let clock = Date.now();

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'limits-synth-'));
  const cdkOut = await synthesize({
    outdir: join(scratch, 'cdk.out'),
    parameterCacheSeconds: 0,
    bundle: false,
    context: {
      wafSignUpLimit: String(LIMITS.signUp),
      wafUnsubscribeLimit: String(LIMITS.unsubscribe),
      wafApiLimit: String(LIMITS.api),
      wafWindowSeconds: String(LIMITS.windowSeconds),
      signUpThrottleRate: '1',
      signUpThrottleBurst: String(SIGN_UP_BURST),
      streamRetryBaseMs: '50',
    },
  });
  stack = await startTestStack({ cdkOut, bundlesFrom: inject('cdkOut'), webAclNow: () => clock });
  // The app's own per-address limit is not what this file is about.
  putSettings(
    stack.parameters,
    hardeningSettings({ public_rate_limit: { max_requests: 100_000, window_minutes: 10 } }),
  );
  // A synth of its own: about 15 s idle, several times that on a loaded machine.
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const signUp = (client: string, body = '{"email": "not an address"}') =>
  send(stack.apiRoot, {
    method: 'POST',
    path: apiPath(stack.apiRoot, '/subscribe'),
    headers: { 'content-type': 'application/json', origin: 'https://site.example' },
    body,
    localAddress: client,
  });

const unsubscribePage = (client: string) =>
  send(stack.apiRoot, {
    method: 'GET',
    path: apiPath(stack.apiRoot, '/subscription/unsubscribe?token=not-a-token'),
    localAddress: client,
  });

const oneClick = (client: string) =>
  send(stack.apiRoot, {
    method: 'POST',
    path: apiPath(stack.apiRoot, '/subscription/unsubscribe?token=not-a-token'),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
    localAddress: client,
  });

const codeOf = (answer: RawResponse): string => (JSON.parse(answer.text) as { code: string }).code;

describe('[http.client-limits] per client address, before any function', () => {
  it('a client over the sign-up limit gets 429s; other clients, and its own unsubscribing, do not', async () => {
    const flooder = '127.0.2.1';
    const answers: RawResponse[] = [];
    for (let call = 0; call <= LIMITS.signUp; call += 1) answers.push(await signUp(flooder));
    // The first ten reach the function (an address it refuses), the eleventh does not.
    expect(answers.slice(0, LIMITS.signUp).map((answer) => answer.status)).toEqual(
      Array(LIMITS.signUp).fill(400),
    );
    const refused = answers.at(-1) as RawResponse;
    expect(refused.status).toBe(429);
    expect(errorShapeProblems(refused)).toEqual([]);
    expect(codeOf(refused)).toBe('rate_limited');
    // A page of another site can read why ([http.cors]).
    expect(refused.headers['access-control-allow-origin']).toBe('*');

    expect((await signUp('127.0.2.2')).status).toBe(400);
    for (const answer of [await unsubscribePage(flooder), await oneClick(flooder)]) {
      expect(answer.status).not.toBe(429);
      expect(answer.contentType).toContain('text/html');
    }
  });

  it('the limit is per window: once it has passed, the client is served again', async () => {
    const client = '127.0.2.3';
    const list = () =>
      send(stack.apiRoot, {
        method: 'GET',
        path: apiPath(stack.apiRoot, '/newsletters'),
        localAddress: client,
      });
    const statuses: number[] = [];
    for (let call = 0; call <= LIMITS.api; call += 1) statuses.push((await list()).status);
    expect(statuses.slice(0, LIMITS.api)).toEqual(Array(LIMITS.api).fill(200));
    expect(statuses.at(-1)).toBe(429);
    clock += LIMITS.windowSeconds * 1000 + 1;
    expect((await list()).status).toBe(200);
  });

  it('one-click unsubscribe has a limit of its own, and everything else one of its own', async () => {
    const client = '127.0.2.4';
    const clicks: number[] = [];
    for (let call = 0; call <= LIMITS.unsubscribe; call += 1)
      clicks.push((await oneClick(client)).status);
    expect(clicks.at(-1)).toBe(429);
    expect(clicks.slice(0, -1)).not.toContain(429);
    // The same client's other calls are counted apart from its unsubscribing.
    const list = await send(stack.apiRoot, {
      method: 'GET',
      path: apiPath(stack.apiRoot, '/newsletters'),
      localAddress: client,
    });
    expect(list.status).toBe(200);
  });
});

describe('[http.client-limits] the stage web ACL counts the client CloudFront names', () => {
  it('behind the distribution, per viewer address; without the origin secret, not at all', () => {
    const deployed = stack.cloud.stack;
    const acl = deployed.api().webAcl;
    const secret = deployed.distribution()?.originHeaders['x-newsletter-origin'];
    if (!acl || !secret) throw new Error('the stage has no web ACL, or CloudFront no secret');
    let now = 0;
    const stage = new LocalWebAcl(acl, () => now);
    const request = (viewer: string, headers: Record<string, string> = {}) =>
      stage.evaluate({
        ip: '130.176.1.1',
        method: 'POST',
        path: '/api/newsletter/v2/subscriptions',
        headers: { 'x-newsletter-origin': secret, 'x-newsletter-viewer-ip': viewer, ...headers },
      });
    expect(request('192.0.2.1', { 'x-newsletter-origin': 'guessed' })).toMatchObject({
      action: 'block',
      status: 403,
    });
    for (let call = 0; call < LIMITS.signUp; call += 1)
      expect(request('192.0.2.1').action).toBe('allow');
    expect(request('192.0.2.1')).toMatchObject({ action: 'block', status: 429 });
    // Another viewer behind the same CloudFront edge is another client.
    expect(request('192.0.2.2').action).toBe('allow');
    now += LIMITS.windowSeconds * 1000 + 1;
    expect(request('192.0.2.1').action).toBe('allow');
  });
});

describe('[http.client-limits] API Gateway throttles each method apart', () => {
  it('a flood of sign-ups from many addresses answers 429 on sign-up only; one-click unsubscribe goes on', async () => {
    // Many clients, each under its limits: only the sign-up method's bucket runs dry.
    const clients = Array.from({ length: 3 * SIGN_UP_BURST }, (_, i) => `127.0.3.${i + 1}`);
    const flood = inPool(clients, clients.length, (client) => signUp(client));
    const clicks = inPool(clients.slice(0, 20), 4, (client) =>
      oneClick(`${client.replace('.3.', '.4.')}`),
    );
    const [signUps, unsubscribes] = await Promise.all([flood, clicks]);
    const throttled = signUps.filter((answer) => answer.status === 429);
    expect(throttled.length).toBeGreaterThanOrEqual(SIGN_UP_BURST / 2);
    for (const answer of throttled) {
      expect(errorShapeProblems(answer)).toEqual([]);
      expect(codeOf(answer)).toBe('rate_limited');
    }
    expect(unsubscribes.map((answer) => answer.status)).not.toContain(429);
    const list = await fetch(`${stack.apiRoot}/newsletters`);
    expect(list.status).toBe(200);
  });
});
