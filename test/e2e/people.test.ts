/**
 * The console's people, managed by the CLI (`people add|remove|list --local`) and by signed-in
 * admins (`/people`), one operation behind both, against the local stack: the user pool in
 * cognito-local, the people functions with their own roles (every Cognito call checked against
 * their grants by the local cloud's endpoint, as IAM would).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { runCli } from '../cli/cli-harness.ts';
import { documentClient } from '../support/local-dynamo.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let dir: string;
let v2: string;
let origin: string;
let config: { cognito: { endpoint: string; clientId: string; userPoolId: string } };

beforeAll(async () => {
  stack = await startTestStack();
  v2 = stack.apiRoot.replace(/\/v1$/, '/v2');
  origin = new URL(stack.consoleUrl).origin;
  config = (await (await fetch(`${origin}/config.json`)).json()) as typeof config;
  // What `npm start` writes into its data folder for `--local`.
  dir = await mkdtemp(join(tmpdir(), 'newsletter-people-'));
  await writeFile(join(dir, 'local-endpoints.json'), JSON.stringify(stack.endpoints));
});

afterAll(async () => {
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCli(['--local', '--data-dir', dir, ...argv], { cwd: dir });

async function cognitoCall(target: string, body: unknown) {
  const response = await fetch(config.cognito.endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.1',
      'X-Amz-Target': `AWSCognitoIdentityProviderService.${target}`,
    },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** A first sign-in with the temporary password, choosing `chosen`: the ID token. */
async function firstSignIn(email: string, temporary: string, chosen = 'My-Own-Pass-99!') {
  const first = await cognitoCall('InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: config.cognito.clientId,
    AuthParameters: { USERNAME: email, PASSWORD: temporary },
  });
  expect(first.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
  const answered = await cognitoCall('RespondToAuthChallenge', {
    ChallengeName: 'NEW_PASSWORD_REQUIRED',
    ClientId: config.cognito.clientId,
    Session: first.Session,
    ChallengeResponses: { USERNAME: email, NEW_PASSWORD: chosen },
  });
  return (answered.AuthenticationResult as { IdToken: string }).IdToken;
}

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${v2}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

let adminToken: string;

describe('[people.manage] the CLI and the admin routes', () => {
  it('people add prints a temporary password once; the person sets their own at first sign-in', async () => {
    const added = await cli('people', 'add', 'Ada@Example.com', '--role', 'admin');
    expect(added.code, added.stderr).toBe(0);
    const password = /^temporary_password=(\S+)$/m.exec(added.stdout)?.[1] ?? '';
    expect(password).toMatch(/^\S{20}$/);
    expect(added.stderr).toMatch(/ada@example\.com added as admin.*shown only this once/);
    adminToken = await firstSignIn('ada@example.com', password);
    const claims = JSON.parse(Buffer.from(adminToken.split('.')[1] ?? '', 'base64url').toString());
    expect(claims['cognito:groups']).toEqual(['admin']);
  });

  it('lets a signed-in admin list, add and remove people over /people', async () => {
    const listed = await call('GET', '/people', bearer(adminToken));
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual([
      expect.objectContaining({ email: 'ada@example.com', role: 'admin', status: 'CONFIRMED' }),
    ]);
    const added = await call('POST', '/people', bearer(adminToken), {
      email: 'bob@example.com',
      role: 'editor',
    });
    expect(added.status).toBe(201);
    expect(added.json).toEqual({
      email: 'bob@example.com',
      role: 'editor',
      temporary_password: expect.stringMatching(/^\S{20}$/),
    });
    // The CLI sees what the route did: one implementation, one pool.
    const seen = await cli('people', 'list', '--json');
    expect(JSON.parse(seen.stdout)).toEqual([
      expect.objectContaining({ email: 'ada@example.com', role: 'admin' }),
      expect.objectContaining({
        email: 'bob@example.com',
        role: 'editor',
        status: 'FORCE_CHANGE_PASSWORD',
      }),
    ]);
    const editorToken = await firstSignIn('bob@example.com', added.json.temporary_password);
    // An editor may not manage people ([console.roles]).
    expect((await call('GET', '/people', bearer(editorToken))).status).toBe(403);
    const removed = await call(
      'DELETE',
      `/people/${encodeURIComponent('bob@example.com')}`,
      bearer(adminToken),
    );
    expect(removed.status, JSON.stringify(removed.json)).toBe(200);
    expect(removed.json).toEqual({ email: 'bob@example.com' });
    const table = await cli('people', 'list');
    expect(table.stdout).toContain('ada@example.com');
    expect(table.stdout).not.toContain('bob@example.com');
  });

  it('refuses a bad address or role (400 / exit 2), someone already there (409), no one (404)', async () => {
    const badRole = await cli('people', 'add', 'cy@example.com', '--role', 'owner');
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/role must be one of editor, admin/);
    const badEmail = await call('POST', '/people', bearer(adminToken), {
      email: 'not an address',
      role: 'editor',
    });
    expect(badEmail.status).toBe(400);
    expect(badEmail.json.code).toBe('invalid_parameter');
    const twice = await call('POST', '/people', bearer(adminToken), {
      email: 'ada@example.com',
      role: 'editor',
    });
    expect(twice.status).toBe(409);
    expect(twice.json.code).toBe('person_exists');
    expect((await call('DELETE', '/people/nobody%40example.com', bearer(adminToken))).status).toBe(
      404,
    );
    const gone = await cli('people', 'remove', 'nobody@example.com');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/No one of address nobody@example\.com/);
  });

  it('[console.roles] lets no client key and no anonymous caller manage people', async () => {
    const keys = new DynamoClientKeyStore(documentClient(stack.dynamo.endpoint), stack.tableName);
    const created = await createClientKey({ keys, now: () => new Date() }, 'writer', 'write');
    if (isNewsletterError(created)) throw new Error(created.message);
    const basic = Buffer.from(`${created.record.client_key}:${created.clientSecret}`).toString(
      'base64',
    );
    const keyed = await call('GET', '/people', { Authorization: `Basic ${basic}` });
    expect(keyed.status).toBe(403);
    expect(keyed.json.code).toBe('forbidden');
    expect((await call('GET', '/people', {})).status).toBe(401);
  });

  it('people remove ends the person; the people functions called only their granted actions', async () => {
    const removed = await cli('people', 'remove', 'ada@example.com');
    expect(removed.code, removed.stderr).toBe(0);
    expect((await cli('people', 'list', '--json')).stdout.trim()).toBe('[]');
    const cognitoCalls = stack.cloud.endpoint.calls.filter(
      (call) => call.service === 'cognito-idp',
    );
    expect(new Set(cognitoCalls.map((call) => call.operation))).toEqual(
      new Set([
        'ListUsers',
        'ListUsersInGroup',
        'AdminCreateUser',
        'AdminAddUserToGroup',
        'AdminDeleteUser',
      ]),
    );
    const poolArn = `arn:aws:cognito-idp:us-east-1:123456789012:userpool/${config.cognito.userPoolId}`;
    for (const call of cognitoCalls) {
      expect(call.allowed).toBe(true);
      expect(call.authorizations.map((each) => each.resource)).toEqual([poolArn]);
    }
    expect(stack.denials).toEqual([]);
  });
});
