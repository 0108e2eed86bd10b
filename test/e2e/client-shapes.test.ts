/**
 * The compatibility suite: requests shaped as real clients of the original plugin send them
 * (docs/compatibility.md), written out as raw HTTP (headers and body bytes), not through any
 * client library, so each test shows exactly what goes over the wire. Each must subscribe a
 * person.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/adapters/store/table-design.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { freshAddresses } from '../support/fixtures.ts';
import { type LocalService, startLocalService } from './support/local-service.ts';

let service: LocalService;
let table: { client: DynamoDBDocumentClient; name: string };

beforeAll(async () => {
  service = await startLocalService();
  table = {
    client: DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: service.stack.dynamo.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    ),
    name: service.stack.tableName,
  };
});

afterAll(async () => {
  await service?.stop();
});

afterEach(() => {
  service.resetSettings();
});

/** A fresh address per call, so tests never see each other's subscribers. */
const address = freshAddresses();

const SITE = 'https://shop.example.net';
/** What Chromium sends for a navigation, a plain form submission included. */
const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';
/** axios's default Accept, 0.x and 1.x alike. */
const AXIOS_ACCEPT = 'application/json, text/plain, */*';

/** The subscriber as the key holder sees it, after the keyless request was applied. */
async function stored(email: string): Promise<Subscriber> {
  const subscriber = await service.subscriber(email);
  if (!subscriber) throw new Error(`${email} was not stored`);
  return subscriber;
}

/** The subscriber's item in the table, as DynamoDB holds it (TTL attribute included). */
async function item(email: string): Promise<Record<string, unknown> | undefined> {
  const output = await table.client.send(
    new GetCommand({ TableName: table.name, Key: keys.subscriber(email), ConsistentRead: true }),
  );
  return output.Item;
}

/** A multipart body as `fetch(url, { body: formData })` frames it (undici's boundary style). */
function multipartBody(fields: readonly (readonly [string, string])[]): {
  body: string;
  type: string;
} {
  const boundary = '----formdata-undici-0a1b2c3d4e5f';
  const parts = fields.map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return {
    body: `${parts.join('')}--${boundary}--\r\n`,
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

describe('[compat] request shapes of real clients subscribe a person', () => {
  it.each([
    ['axios 0.x', 'application/json;charset=utf-8', 'axios/0.27.2'],
    ['axios 1.x', 'application/json; charset=UTF-8', 'axios/1.7.9'],
  ])('%s: JSON with a charset', async (_client, contentType, userAgent) => {
    const email = address('axios');
    const response = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': contentType, Accept: AXIOS_ACCEPT, 'User-Agent': userAgent },
      body: JSON.stringify({ email, name: 'Ada', lists: [1, 4] }),
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ email, status: 'pending' });
    expect(await stored(email)).toMatchObject({ name: 'Ada', lists: [1, 2, 4], status: 'S' });
  });

  it('fetch with FormData: multipart, and a JSON answer (fetch does not prefer HTML)', async () => {
    const email = address('formdata');
    const { body, type } = multipartBody([
      ['email', email],
      ['name', 'Grace'],
      ['lists[]', '1'],
      ['lists[]', '4'],
    ]);
    const response = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': type, Accept: '*/*', Origin: SITE },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ email, status: 'pending' });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await stored(email)).toMatchObject({ name: 'Grace', lists: [1, 2, 4] });
  });

  it('a plain HTML form with a browser Accept lands on a page', async () => {
    const email = address('html');
    const response = await service.request('POST', '/subscribe', {
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Accept: BROWSER_ACCEPT,
        Origin: SITE,
        Referer: `${SITE}/join`,
      },
      body: new URLSearchParams({ email, name: 'Ada', submit: 'Subscribe' }).toString(),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.text).toContain('Check your inbox');
    expect(await stored(email)).toMatchObject({ name: 'Ada', status: 'S' });
  });

  it('a urlencoded body with repeated lists=1&lists=4', async () => {
    const email = address('repeated');
    const response = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `email=${encodeURIComponent(email)}&lists=1&lists=4`,
    });
    expect(response.status).toBe(200);
    expect((await stored(email)).lists).toEqual([1, 2, 4]);
  });

  it('an email in the query string with an unrelated JSON body', async () => {
    const email = address('query');
    const response = await service.request(
      'POST',
      `/subscribe?email=${encodeURIComponent(email)}`,
      {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ source: 'footer', campaign: 'winter' }),
      },
    );
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ email, status: 'pending' });
    expect((await stored(email)).status).toBe('S');
  });

  it('a trailing slash reaches the same endpoint', async () => {
    const email = address('slash');
    const response = await service.request('POST', '/subscribe/', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ email, status: 'pending' });
    expect((await stored(email)).status).toBe('S');
  });

  it('extra unknown fields, unknown profile fields included, are ignored and the person stored', async () => {
    const email = address('extra');
    const response = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email,
        name: 'Ada',
        utm_source: 'newsletter',
        submit: 'Subscribe',
        consent_version: 3,
        profile_2: 'x',
        profile_3: 'y',
        profile_4: 'z',
      }),
    });
    expect(response.status).toBe(200);
    expect(await stored(email)).toMatchObject({ name: 'Ada', profile: {} });
  });

  it('[http.cors-authorization] a browser preflight asking for authorization, content-type, then the call with a bearer header', async () => {
    const preflight = await service.request('OPTIONS', '/subscribe', {
      headers: {
        Origin: SITE,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '')
      .toLowerCase()
      .split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']));

    const email = address('bearer');
    const response = await service.request('POST', '/subscribe', {
      headers: {
        Origin: SITE,
        'Content-Type': 'application/json',
        Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.not-a-key',
      },
      body: JSON.stringify({ email }),
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ email, status: 'pending' });
    expect((await stored(email)).status).toBe('S');
  });
});

describe('[compat] send_emails and expiry', () => {
  it('[subscribe.expiry-asked-only] a keyed send_emails=false subscriber has no expiry in the table and gets no mail; a keyless signup expires', async () => {
    const quiet = address('quiet');
    const keyed = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: quiet, send_emails: false, api_key: service.apiKey }),
    });
    expect(keyed.status).toBe(200);
    expect((keyed.json as Subscriber).status).toBe('S');
    const quietItem = await item(quiet);
    expect(quietItem?.status).toBe('S');
    expect(quietItem).not.toHaveProperty('expires_at');
    expect(await service.mails(quiet)).toEqual([]);

    const asked = address('asked');
    const before = Math.floor(Date.now() / 1000);
    await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: asked }),
    });
    const expiresAt = Number((await item(asked))?.expires_at);
    const days = 30 * 86_400;
    expect(expiresAt).toBeGreaterThanOrEqual(before + days);
    expect(expiresAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + days);
  });

  it('[params.send-emails-string] send_emails="false" as a JSON string or a form field means false', async () => {
    const json = address('string');
    await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: json, send_emails: 'false', api_key: service.apiKey }),
    });
    const form = address('string');
    await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        email: form,
        send_emails: 'false',
        api_key: service.apiKey,
      }).toString(),
    });
    for (const email of [json, form]) {
      expect(await item(email)).not.toHaveProperty('expires_at');
      expect(await service.mails(email)).toEqual([]);
    }
    const bad = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: address('string'), send_emails: 'nope' }),
    });
    expect(bad.status).toBe(400);
  });
});

describe('[params.original-form-fields] the original plugin form fields', () => {
  it('ne, nn, ns, nx, nl[], np<N> and ny as a form posts them subscribe the person', async () => {
    service.setSettings({ profile_fields: [{ id: '1', name: 'City' }] });
    const email = address('original');
    const body = new URLSearchParams([
      ['nlang', 'en'],
      ['nr', 'widget'],
      ['nl[]', '1'],
      ['nn', 'Ada'],
      ['ns', 'Lovelace'],
      ['ne', email],
      ['nx', 'f'],
      ['nl[]', '4'],
      ['np1', 'London'],
      ['ny', 'on'],
    ]).toString();
    const response = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: BROWSER_ACCEPT },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.text).toContain('Check your inbox');
    expect(await stored(email)).toMatchObject({
      name: 'Ada',
      surname: 'Lovelace',
      gender: 'f',
      lists: [1, 2, 4],
      profile: { '1': 'London' },
      status: 'S',
    });
  });

  it('nl as 1|4 is two lists; a field given both ways is a 400', async () => {
    const email = address('piped');
    const piped = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `ne=${encodeURIComponent(email)}&nl=1%7C4`,
    });
    expect(piped.status).toBe(200);
    expect((await stored(email)).lists).toEqual([1, 2, 4]);

    const twice = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `ne=${encodeURIComponent(email)}&email=${encodeURIComponent(email)}`,
    });
    expect(twice.status).toBe(400);
    expect(twice.json).toMatchObject({ code: 'invalid_parameter' });
    expect((twice.json as { message: string }).message).toMatch(/ne and email/);
  });

  it('[params.privacy] a required privacy checkbox: without ny a 400, with ny=on a subscription', async () => {
    service.setSettings({ required_public_fields: ['privacy'] });
    const email = address('privacy');
    const without = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `ne=${encodeURIComponent(email)}`,
    });
    expect(without.status).toBe(400);
    expect(without.json).toMatchObject({ code: 'missing_parameter' });
    const ticked = await service.request('POST', '/subscribe', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `ne=${encodeURIComponent(email)}&ny=on`,
    });
    expect(ticked.status).toBe(200);
    expect((await stored(email)).status).toBe('S');
  });
});
