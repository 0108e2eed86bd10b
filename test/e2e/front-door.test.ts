/**
 * [http.front-door] The client's address cannot be forged. The API answers only what came
 * through the stack's CloudFront distribution: at its execute-api address the stage's web ACL
 * refuses every request without the origin secret, forged headers and all, before any
 * function runs; through the distribution, the client is the address the viewer connected
 * from, whatever X-Forwarded-For or the API's own headers say, and links in mails take the
 * host the viewer addressed and only `http` or `https` as their scheme. Locally as deployed:
 * the distribution (infra/local/cloud/cloudfront.ts) and the stage's web ACL come from the
 * template, the origin secret from the secret the template has Secrets Manager draw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiPath,
  documentClient,
  dumpTable,
  errorShapeProblems,
  hardeningSettings,
  limitedForOneWindow,
  putSettings,
  type RawResponse,
  send,
} from '../hardening/support/harness.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let db: ReturnType<typeof documentClient>;

beforeAll(async () => {
  stack = await startTestStack();
  db = documentClient(stack.dynamo.endpoint);
});

afterAll(async () => {
  db?.destroy();
  await stack?.stop();
});

/** Every header a caller could forge to pass for someone else, or for CloudFront. */
const FORGED = {
  'x-forwarded-for': '203.0.113.9, 198.51.100.23',
  'x-newsletter-origin': 'guessed-secret',
  'x-newsletter-viewer-ip': '203.0.113.77',
  'x-newsletter-viewer-host': 'evil.example',
  'x-real-ip': '203.0.113.78',
  forwarded: 'for=203.0.113.79',
};

const subscribeBody = (email: string) => JSON.stringify({ email });

describe('[http.front-door] around the distribution', () => {
  it('the execute-api address refuses every request without the origin secret, before any function runs', async () => {
    // The stack's own start-up work first: the events of its seed are marked as published
    // (EVENT# items) by the publisher, after the stream brings them.
    await stack.settled();
    const before = await dumpTable(db, stack.tableName);
    const direct = stack.executeApiRoot;
    const answers: RawResponse[] = [];
    for (const headers of [{}, FORGED]) {
      answers.push(
        await send(direct, {
          method: 'POST',
          path: apiPath(direct, '/subscribe'),
          headers: { 'content-type': 'application/json', ...headers },
          body: subscribeBody('around@example.com'),
        }),
        await send(direct, { method: 'GET', path: apiPath(direct, '/newsletters'), headers }),
        await send(direct, {
          method: 'GET',
          path: apiPath(direct, '/subscription/unsubscribe?token=abc'),
          headers,
        }),
        await send(direct, {
          method: 'GET',
          path: `${apiPath(direct, '').replace(/\/v1$/, '/v2')}/subscribers`,
          headers,
        }),
      );
    }
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(errorShapeProblems(answer)).toEqual([]);
      expect(JSON.parse(answer.text).code).toBe('forbidden');
    }
    await stack.settled();
    expect(await dumpTable(db, stack.tableName)).toEqual(before);
    expect(stack.logLines.filter((line) => line.includes('around@example.com'))).toEqual([]);
  });

  it('the distribution answers only for its own names: another Host reaches nothing', async () => {
    const answer = await send(stack.apiRoot, {
      method: 'POST',
      path: apiPath(stack.apiRoot, '/subscribe'),
      headers: { 'content-type': 'application/json', host: 'evil.example' },
      body: subscribeBody('evil-host@example.com'),
    });
    expect(answer.status).toBe(403);
    await stack.settled();
    expect(await stack.liveSes.messages()).not.toContainEqual(
      expect.objectContaining({
        destination: expect.objectContaining({ to: ['evil-host@example.com'] }),
      }),
    );
  });
});

describe('[http.front-door] through the distribution', () => {
  it('[subscribe.client-address] a client sending forged addresses is still one client: the per-address limit holds', async () => {
    await limitedForOneWindow(stack.parameters, 3);
    try {
      const client = '127.0.0.42';
      const statuses: number[] = [];
      for (let call = 0; call < 5; call += 1) {
        const answer = await send(stack.apiRoot, {
          method: 'POST',
          path: apiPath(stack.apiRoot, '/subscribe'),
          headers: {
            'content-type': 'application/json',
            ...FORGED,
            'x-forwarded-for': `203.0.113.${call}`,
            'x-newsletter-viewer-ip': `198.51.100.${call}`,
          },
          body: subscribeBody(`forger-${call}@example.com`),
          localAddress: client,
        });
        statuses.push(answer.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      // The consent evidence names the address the client connected from.
      await stack.settled();
      const stored = (await dumpTable(db, stack.tableName)).find(
        (item) => item.pk === 'SUBSCRIBER#forger-0@example.com',
      );
      expect(stored?.consent).toMatchObject({ subscribed: { ip: client } });
    } finally {
      putSettings(stack.parameters, hardeningSettings());
    }
  });

  it('[http.forwarded-proto] links in mails point at the host the viewer addressed, over http or https only', async () => {
    const email = 'scheme@example.com';
    const answer = await send(stack.apiRoot, {
      method: 'POST',
      path: apiPath(stack.apiRoot, '/subscribe'),
      headers: {
        'content-type': 'application/json',
        'x-forwarded-proto': 'javascript',
        'x-forwarded-host': 'evil.example',
        'x-newsletter-viewer-host': 'evil.example',
      },
      body: subscribeBody(email),
      localAddress: '127.0.0.43',
    });
    expect(answer.status).toBe(200);
    const mail = (await stack.liveSes.messages()).find((each) =>
      each.destination.to.join().includes(email),
    );
    const link = /https?:\/\/\S+subscription\/confirm\?token=[\w-]+/.exec(
      mail?.body.text ?? '',
    )?.[0];
    expect(link).toMatch(new RegExp(`^${stack.apiRoot}/subscription/confirm\\?token=`));
    expect(mail?.body.text).not.toContain('evil.example');
    expect(mail?.body.text).not.toContain('javascript');
  });
});
