/**
 * The request shapes public clients of the original's API v2 send (found by searching public
 * code for `newsletter/v2/subscribers` and `newsletter/v2/subscriptions`: React and Vue pages
 * with axios, jQuery forms, an Angular service, Next.js and PHP back ends, a Ruby job), written
 * here from what they put on the wire, not copied, and sent as raw HTTP to the local stack.
 * Each must do what its author wanted: store or subscribe the person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { send } from '../hardening/support/harness.ts';
import { freshAddresses } from '../support/fixtures.ts';
import { documentClient } from '../support/local-dynamo.ts';
import { type LocalService, startLocalService } from './support/local-service.ts';

let service: LocalService;
let v2: string;
let write: { key: string; secret: string };
let read: { key: string; secret: string };

beforeAll(async () => {
  service = await startLocalService();
  v2 = service.apiRoot.replace(/\/v1$/, '/v2');
  const keys = new DynamoClientKeyStore(
    documentClient(service.stack.dynamo.endpoint),
    service.stack.tableName,
  );
  const made = async (permission: 'read' | 'write') => {
    const key = await createClientKey({ keys, now: () => new Date() }, 'client', permission);
    if (isNewsletterError(key)) throw new Error(key.message);
    return { key: key.record.client_key, secret: key.clientSecret };
  };
  write = await made('write');
  read = await made('read');
});

afterAll(async () => {
  await service?.stop();
});

const address = freshAddresses();
const query = (pair: { key: string; secret: string }) =>
  `client_key=${pair.key}&client_secret=${pair.secret}`;
const basic = (pair: { key: string; secret: string }) =>
  `Basic ${Buffer.from(`${pair.key}:${pair.secret}`).toString('base64')}`;

/** One raw request to v2, as the client writes it. */
async function raw(
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: string,
) {
  const response = await send(v2, {
    method,
    path: `${new URL(v2).pathname}${pathAndQuery}`,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  await service.stack.settled();
  return { status: response.status, json: JSON.parse(response.text) as unknown };
}

const stored = async (email: string) =>
  (await raw('GET', `/subscribers/${encodeURIComponent(email)}?${query(read)}`, {})).json as {
    status?: string;
    first_name?: string;
    last_name?: string;
  };

describe('clients of POST /subscribers', () => {
  it('[v2.subscriber-upsert] axios from a React page: JSON, HTTP Basic, status "subscribed"', async () => {
    const email = address('axios-basic');
    const answer = await raw(
      'POST',
      '/subscribers',
      {
        'content-type': 'application/json',
        accept: 'application/json, text/plain, */*',
        authorization: basic(write),
      },
      JSON.stringify({ email, status: 'subscribed' }),
    );
    expect(answer.status).toBe(201);
    expect(await stored(email)).toMatchObject({ status: 'confirmed' });
  });

  it('[v2.form-fields] a jQuery form: urlencoded fields, the key in the query string', async () => {
    const email = address('jquery');
    const answer = await raw(
      'POST',
      `/subscribers?${query(write)}`,
      {
        'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
        'x-requested-with': 'XMLHttpRequest',
      },
      new URLSearchParams({
        email,
        first_name: 'Ana',
        last_name: 'Ruiz',
        status: 'confirmed',
      }).toString(),
    );
    expect(answer.status).toBe(201);
    expect(await stored(email)).toMatchObject({ first_name: 'Ana', status: 'confirmed' });
  });

  it('[v2.keys] a Ruby job (Net::HTTP, basic_auth) and an Angular service (key in the query)', async () => {
    const ruby = address('ruby');
    expect(
      (
        await raw(
          'POST',
          '/subscribers',
          {
            'content-type': 'application/json',
            accept: '*/*',
            'user-agent': 'Ruby',
            authorization: basic(write),
          },
          JSON.stringify({ email: ruby, first_name: 'Zivi', last_name: 'Muster' }),
        )
      ).status,
    ).toBe(201);
    const angular = address('angular');
    expect(
      (
        await raw(
          'POST',
          `/subscribers?${query(write)}`,
          { 'content-type': 'application/json', accept: 'application/json, text/plain, */*' },
          JSON.stringify({ email: angular, first_name: 'Ng', status: 'confirmed' }),
        )
      ).status,
    ).toBe(201);
    expect(await stored(ruby)).toMatchObject({ first_name: 'Zivi', last_name: 'Muster' });
  });

  it('[v2.subscriber-reference] a Vue app reading one subscriber by address with the key in the query', async () => {
    const email = address('vue');
    await raw(
      'POST',
      `/subscribers?${query(write)}`,
      { 'content-type': 'application/json' },
      JSON.stringify({ email }),
    );
    const answer = await raw('GET', `/subscribers/${email}?${query(read)}`, {});
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ email });
  });
});

describe('clients of POST /subscriptions', () => {
  it('[v2.form-fields] a jQuery form after Contact Form 7: extra_fields as nested form fields', async () => {
    const email = address('cf7');
    const body = new URLSearchParams({
      email,
      first_name: 'Bea',
      last_name: 'Ortiz',
      'extra_fields[0][id]': 'company',
      'extra_fields[0][name]': 'Company',
      'extra_fields[0][value]': 'ACME',
    }).toString();
    const answer = await raw(
      'POST',
      `/subscriptions?${query(write)}`,
      { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body,
    );
    expect(answer).toEqual({ status: 201, json: {} });
    expect(await stored(email)).toMatchObject({ first_name: 'Bea' });
    const full = (await raw('GET', `/subscribers/${email}?${query(read)}`, {})).json as {
      extra_fields: unknown[];
    };
    expect(full.extra_fields).toEqual([{ id: 'company', value: 'ACME' }]);
  });

  it('[v2.subscriptions] server-side fetch (Next.js) and PHP curl, no key: JSON with the address', async () => {
    for (const [email, headers] of [
      [address('next'), { 'content-type': 'application/json' }],
      [address('php'), { accept: '*/*', 'content-type': 'application/json' }],
    ] as const) {
      const answer = await raw(
        'POST',
        '/subscriptions',
        headers,
        JSON.stringify({ email, first_name: 'P' }),
      );
      expect(answer).toEqual({ status: 201, json: {} });
      expect(await stored(email)).toMatchObject({ status: 'not_confirmed' });
    }
  });

  it('[v2.subscriptions] a React page sending every field, empty ones as "" and null, with a read key', async () => {
    const email = address('allfields');
    const answer = await raw(
      'POST',
      `/subscriptions?${query(read)}`,
      { accept: 'application/json', 'content-type': 'application/json' },
      JSON.stringify({
        email,
        first_name: 'Kim',
        last_name: 'Lee',
        gender: null,
        country: '',
        region: '',
        city: '',
        lists: [],
        extra_fields: [],
      }),
    );
    // A read key grants nothing here: the subscription runs as a keyless one.
    expect(answer).toEqual({ status: 201, json: {} });
    expect(await stored(email)).toMatchObject({ status: 'not_confirmed', first_name: 'Kim' });
  });

  it('[v2.subscriptions] an app that reads error.code "exists" gets the same 201 for a known address', async () => {
    const email = address('exists');
    await raw(
      'POST',
      '/subscriptions',
      { 'content-type': 'application/json' },
      JSON.stringify({ email }),
    );
    const again = await raw(
      'POST',
      '/subscriptions',
      { 'content-type': 'application/json' },
      JSON.stringify({ email }),
    );
    expect(again).toEqual({ status: 201, json: {} });
  });
});
