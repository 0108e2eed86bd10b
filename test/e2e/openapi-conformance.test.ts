import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiV2Document } from '../../functions/http/openapi-v2-document.ts';
import { routes } from '../../functions/routes.ts';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { adminIdToken } from '../support/console-admin.ts';
import { documentClient } from '../support/local-dynamo.ts';
import { createResponseValidator } from '../support/openapi-validator.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
const validate = createResponseValidator();
const checked = new Set<string>();

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** Calls the local service and checks the answer against the description. */
async function call(
  method: 'GET' | 'POST',
  path: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; body: unknown }> {
  const url = new URL(`${stack.apiRoot}${path}`);
  let init: RequestInit = { method };
  if (method === 'GET') {
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, String(value));
  } else {
    init = {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(params),
    };
  }
  const response = await fetch(url, init);
  const body = response.headers.get('content-type')?.startsWith('application/json')
    ? await response.json()
    : await response.text();
  if (typeof body === 'object') {
    expect(
      validate(path, method, response.status, body),
      `${method} ${path} ${response.status}`,
    ).toEqual([]);
    checked.add(`${method} ${path} ${response.status}`);
  }
  return { status: response.status, body };
}

describe('the local service answers as the OpenAPI description says', () => {
  it('for every JSON route, on success and on error', async () => {
    const key = { api_key: stack.apiKey };
    expect((await call('POST', '/subscribe', { email: 'oa@example.com' })).status).toBe(200);
    expect(
      (await call('POST', '/subscribe', { email: 'oa-trusted@example.com', ...key })).status,
    ).toBe(200);
    expect((await call('POST', '/subscribe', { email: 'nope' })).status).toBe(400);
    expect((await call('POST', '/subscribe', { email: 'oa@example.com', lists: [3] })).status).toBe(
      403,
    );
    expect(
      (await call('POST', '/subscribers/add', { email: 'oa-add@example.com', ...key })).status,
    ).toBe(200);
    expect((await call('POST', '/subscribers/add', { email: 'oa-add@example.com' })).status).toBe(
      403,
    );
    expect(
      (await call('POST', '/subscribers/add', { email: 'oa-add@example.com', ...key })).status,
    ).toBe(400);
    expect((await call('POST', '/subscribers', key)).status).toBe(200);
    expect(
      (await call('POST', '/unsubscribe', { email: 'oa-add@example.com', ...key })).status,
    ).toBe(200);
    expect(
      (await call('POST', '/unsubscribe', { email: 'missing@example.com', ...key })).status,
    ).toBe(404);
    expect(
      (await call('POST', '/subscribers/delete', { email: 'oa-add@example.com', ...key })).status,
    ).toBe(200);
    expect(
      (await call('POST', '/subscribers/delete', { email: 'oa-add@example.com', ...key })).status,
    ).toBe(404);
    expect((await call('GET', '/newsletters')).status).toBe(200);
    expect((await call('GET', '/newsletters', key)).status).toBe(200);
    expect((await call('GET', '/newsletters', { api_key: 'wrong' })).status).toBe(403);
    expect((await call('GET', '/subscribe')).status).toBe(405);
    // Every JSON route was seen succeeding.
    // API v2 has its own description, checked below.
    for (const route of routes.filter(
      (r) => typeof r.response === 'object' && !('version' in r && r.version === 'v2'),
    )) {
      const method = route.methods[0];
      expect(checked.has(`${method} ${route.path} 200`), route.path).toBe(true);
    }
  });

  it('serves the description itself at {api_root}/openapi.json with this server', async () => {
    const { status, body } = await call('GET', '/openapi.json');
    expect(status).toBe(200);
    expect(body).toMatchObject({ openapi: '3.1.0', servers: [{ url: stack.apiRoot }] });
  });

  it('[campaign.web-version] answers the web version of an unknown issue with the described 404', async () => {
    const response = await fetch(`${stack.apiRoot}/newsletters/424242/view`);
    expect(response.status).toBe(404);
    expect(validate('/newsletters/{id}/view', 'GET', 404, await response.json())).toEqual([]);
  });

  it('serves the link pages as HTML', async () => {
    const response = await fetch(`${stack.apiRoot}/subscription/confirm?token=${'a'.repeat(43)}`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('API v2 answers as its OpenAPI description says', () => {
  it('for every v2 route and method, on success and on error', async () => {
    const validateV2 = createResponseValidator(openApiV2Document());
    const store = new DynamoClientKeyStore(documentClient(stack.dynamo.endpoint), stack.tableName);
    const made = await createClientKey({ keys: store, now: () => new Date() }, 'oa', 'write');
    if (isNewsletterError(made)) throw new Error(made.message);
    const key = `client_key=${made.record.client_key}&client_secret=${made.clientSecret}`;
    const root = stack.apiRoot.replace(/\/v1$/, '/v2');
    const seen = new Set<string>();
    const v2 = async (
      method: string,
      template: string,
      path: string,
      query = key,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const response = await fetch(`${root}${path}${query ? `?${query}` : ''}`, {
        method,
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = await response.json();
      expect(validateV2(template, method, response.status, json), `${method} ${path}`).toEqual([]);
      if (response.status < 300) seen.add(`${method} ${template}`);
      return response.status;
    };
    expect(
      await v2('POST', '/subscriptions', '/subscriptions', '', { email: 'oa2@example.com' }),
    ).toBe(201);
    expect(
      await v2('POST', '/subscribers', '/subscribers', key, { email: 'oa2b@example.com' }),
    ).toBe(201);
    expect(await v2('GET', '/subscribers', '/subscribers')).toBe(200);
    expect(await v2('GET', '/subscribers/{id}', '/subscribers/oa2b@example.com')).toBe(200);
    expect(
      await v2('PUT', '/subscribers/{id}', '/subscribers/oa2b@example.com', key, { city: 'Oslo' }),
    ).toBe(200);
    expect(await v2('DELETE', '/subscribers/{id}', '/subscribers/oa2b@example.com')).toBe(200);
    expect(await v2('GET', '/subscribers/{id}', '/subscribers/oa2b@example.com')).toBe(404);
    expect(await v2('GET', '/lists', '/lists')).toBe(200);
    expect(await v2('POST', '/lists', '/lists', key, { name: 'OA list' })).toBe(201);
    expect(await v2('PUT', '/lists/{id}', '/lists/1', key, { name: 'Weekly' })).toBe(200);
    const gone = (await (await fetch(`${root}/lists?${key}&per_page=100`)).json()) as {
      id: number;
    }[];
    const last = gone.at(-1)?.id ?? 0;
    expect(await v2('DELETE', '/lists/{id}', `/lists/${last}`)).toBe(200);
    expect(await v2('DELETE', '/lists/{id}', `/lists/${last}`)).toBe(404);
    expect(await v2('GET', '/lists/{id}', '/lists/1')).toBe(200);
    expect(await v2('GET', '/lists/{id}', '/lists/99')).toBe(404);
    expect(await v2('GET', '/extrafields', '/extrafields')).toBe(200);
    expect(await v2('GET', '/extrafields/{id}', '/extrafields/city')).toBe(200);
    expect(await v2('GET', '/newsletters', '/newsletters', '')).toBe(200);
    expect(await v2('GET', '/newsletters/{id}', '/newsletters/2', '')).toBe(200);
    expect(await v2('GET', '/test', '/test')).toBe(200);
    const html = '<p>Hi {name}</p><p><a href="{unsubscription_url}">Leave</a></p>';
    expect(await v2('POST', '/issues', '/issues', key, { subject: 'oa', html, lists: [4] })).toBe(
      201,
    );
    const issues = (await (await fetch(`${root}/newsletters?${key}&per_page=1`)).json()) as {
      id: number;
    }[];
    const id = issues[0]?.id ?? 0;
    // The draft goes to list 4: the list is not deleted.
    expect(await v2('DELETE', '/lists/{id}', '/lists/4')).toBe(409);
    expect(await v2('PUT', '/issues/{id}', `/issues/${id}`, key, { subject: 'oa 2' })).toBe(200);
    expect(await v2('POST', '/issues/{id}/copy', `/issues/${id}/copy`, key, {})).toBe(201);
    expect(
      await v2('POST', '/issues/{id}/test', `/issues/${id}/test`, key, { to: ['t@example.com'] }),
    ).toBe(200);
    // Scheduled and taken back: the draft again, the second time the lifecycle's 409.
    const at = `${new Date(Date.now() + 3_600_000).toISOString().slice(0, 19)}Z`;
    const schedule = `/issues/${id}/schedule`;
    expect(await v2('POST', '/issues/{id}/schedule', schedule, key, { at: 'soon' })).toBe(400);
    expect(await v2('POST', '/issues/{id}/schedule', schedule, key, { at })).toBe(200);
    expect(await v2('DELETE', '/issues/{id}/schedule', schedule)).toBe(200);
    expect(await v2('DELETE', '/issues/{id}/schedule', schedule)).toBe(409);
    expect(await v2('POST', '/issues/{id}/pause', `/issues/${id}/pause`, key, {})).toBe(409);
    expect(await v2('POST', '/issues/{id}/send', `/issues/${id}/send`, key, {})).toBe(200);
    expect(await v2('GET', '/issues/{id}/report', `/issues/${id}/report`)).toBe(200);
    // What the web console reads and changes.
    expect(await v2('GET', '/issues/{id}/audience', `/issues/${id}/audience`)).toBe(200);
    expect(await v2('GET', '/issues/{id}/audience', '/issues/99999/audience')).toBe(404);
    expect(await v2('GET', '/account', '/account')).toBe(200);
    const settings = await fetch(`${root}/settings?${key}`);
    const shown = (await settings.json()) as { settings: unknown; version: number };
    expect(await v2('GET', '/settings', '/settings')).toBe(200);
    expect(
      await v2('PUT', '/settings', '/settings', key, {
        settings: shown.settings,
        version: shown.version,
      }),
    ).toBe(200);
    expect(await v2('PUT', '/settings', '/settings', key, { settings: { lists: 1 } })).toBe(400);
    expect(
      await v2('POST', '/subscribers', '/subscribers', key, { email: 'oa2c@example.com' }),
    ).toBe(201);
    expect(
      await v2('GET', '/subscribers/{id}/issues', '/subscribers/oa2c@example.com/issues'),
    ).toBe(200);
    expect(
      await v2('GET', '/subscribers/{id}/issues', '/subscribers/nobody@example.com/issues'),
    ).toBe(404);
    // A CSV part in, JSON out.
    for (const [text, status] of [
      ['email\noa2d@example.com\n', 200],
      ['name\nNo address\n', 400],
    ] as const) {
      const imported = await fetch(`${root}/subscribers/import?${key}`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv' },
        body: text,
      });
      expect(imported.status).toBe(status);
      const json = await imported.json();
      expect(validateV2('/subscribers/import', 'POST', imported.status, json)).toEqual([]);
      if (imported.status < 300) seen.add('POST /subscribers/import');
    }
    // Pause, resume and cancel of a send that may have ended already: each answers as described.
    for (const action of ['pause', 'resume', 'cancel']) {
      const status = await v2('POST', `/issues/{id}/${action}`, `/issues/${id}/${action}`, key, {});
      expect([200, 409]).toContain(status);
      if (status === 409) seen.add(`POST /issues/{id}/${action}`);
    }
    expect(await v2('GET', '/test', '/test', '')).toBe(401);
    expect(await v2('POST', '/subscribers', '/subscribers', key, { email: 'bad' })).toBe(400);
    // The console's people: a signed-in admin only (a Cognito ID token, no key).
    const token = await adminIdToken(stack, 'oa-admin@example.com', 'Conformance-Pass-1!');
    const admin = { Authorization: `Bearer ${token}` };
    const person = { email: 'oa-editor@example.com', role: 'editor' };
    expect(await v2('POST', '/people', '/people', '', person, admin)).toBe(201);
    expect(await v2('POST', '/people', '/people', '', person, admin)).toBe(409);
    expect(await v2('GET', '/people', '/people', '', undefined, admin)).toBe(200);
    expect(await v2('GET', '/people', '/people', key)).toBe(403);
    const removal = '/people/oa-editor%40example.com';
    expect(await v2('DELETE', '/people/{email}', removal, '', undefined, admin)).toBe(200);
    expect(await v2('DELETE', '/people/{email}', removal, '', undefined, admin)).toBe(404);
    for (const route of routes.filter((r) => 'version' in r && r.version === 'v2')) {
      for (const method of route.methods) {
        expect(seen.has(`${method} ${route.path}`), `${method} ${route.path}`).toBe(true);
      }
    }
  });
});
