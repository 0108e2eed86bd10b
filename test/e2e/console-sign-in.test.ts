/**
 * The console on the local origin and people signing in, against the local stack (the user
 * pool the template defines, created in cognito-local; every function with its own role): the
 * console's files with their Content-Security-Policy beside the API, `/config.json`, the
 * client-side routes, Cognito's JSON API called as the browser calls it, and the ID token
 * accepted on v2's keyed routes with the role the route table asks for.
 */
import { createSign } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  CreateGroupCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePolicy, PREVIEW_POLICY } from '../../console/csp.ts';
import { LOCAL_REGION } from '../../infra/local/cloud/intrinsics.ts';
import { send } from '../hardening/support/harness.ts';
import { freshAddresses } from '../support/fixtures.ts';
import { type LocalService, startLocalService } from './support/local-service.ts';

let service: LocalService;
let origin: string;
let v2: string;
let config: {
  apiBase: string;
  cognito: { endpoint: string; region: string; userPoolId: string; clientId: string };
};
let cognito: CognitoIdentityProviderClient;
const address = freshAddresses();
const PASSWORD = 'Local-Pass-1234!';

beforeAll(async () => {
  service = await startLocalService();
  origin = new URL(service.stack.consoleUrl).origin;
  v2 = service.apiRoot.replace(/\/v1$/, '/v2');
  config = (await (await fetch(`${origin}/config.json`)).json()) as typeof config;
  // The operator, as the people CLI calls Cognito (admin calls, signed).
  cognito = new CognitoIdentityProviderClient({
    endpoint: config.cognito.endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  cognito?.destroy();
  await service?.stop();
});

/** Cognito's JSON API as the browser calls it: no credentials, from the console's origin. */
async function cognitoCall(
  target: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown>; cors: string | null }> {
  const response = await fetch(config.cognito.endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.1',
      'X-Amz-Target': `AWSCognitoIdentityProviderService.${target}`,
      Origin: origin,
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
    cors: response.headers.get('access-control-allow-origin'),
  };
}

/** A person in the pool with a password of their own, in `group` (none: no role). */
async function person(group?: 'admin' | 'editor', poolId = config.cognito.userPoolId) {
  const email = address(group ?? 'nobody');
  await cognito.send(
    new AdminCreateUserCommand({
      UserPoolId: poolId,
      Username: email,
      MessageAction: 'SUPPRESS',
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'email_verified', Value: 'true' },
      ],
    }),
  );
  await cognito.send(
    new AdminSetUserPasswordCommand({
      UserPoolId: poolId,
      Username: email,
      Password: PASSWORD,
      Permanent: true,
    }),
  );
  if (group)
    await cognito.send(
      new AdminAddUserToGroupCommand({ UserPoolId: poolId, Username: email, GroupName: group }),
    );
  return email;
}

/** Signs in with USER_PASSWORD_AUTH as the console does; the ID and refresh tokens. */
async function signIn(email: string, clientId = config.cognito.clientId) {
  const answer = await cognitoCall('InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: clientId,
    AuthParameters: { USERNAME: email, PASSWORD },
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  const result = answer.json.AuthenticationResult as { IdToken: string; RefreshToken: string };
  return { idToken: result.IdToken, refreshToken: result.RefreshToken };
}

const claimsOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));

/** An RS256 token signed with cognito-local's own key (shipped with it): only its claims differ. */
function forged(claims: Record<string, unknown>): string {
  const key = createRequire(import.meta.url)(
    'cognito-local/lib/keys/cognitoLocal.private.json',
  ) as {
    pem: string;
  };
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT', kid: 'CognitoLocal' })}.${part(claims)}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(key.pem, 'base64url');
  return `${unsigned}.${signature}`;
}

/** A v2 call with a bearer token. */
async function call(method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${v2}${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text ? JSON.parse(text) : undefined,
    headers: response.headers,
  };
}

describe('[console.served] the console on the API origin', () => {
  it('serves the page at / with the console CSP naming Cognito, beside the API', async () => {
    const page = await fetch(`${origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const cognitoOrigin = new URL(config.cognito.endpoint).origin;
    expect(page.headers.get('content-security-policy')).toBe(consolePolicy(cognitoOrigin));
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toContain('<script type="module" src="/console.js"></script>');
    const script = await fetch(`${origin}/console.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  });

  it('answers a client-side route with the page, a missing file with 403, the API with the API', async () => {
    const route = await fetch(`${origin}/issues/12/report`);
    expect(route.status).toBe(200);
    expect(await route.text()).toContain('id="app"');
    expect((await fetch(`${origin}/missing.js`)).status).toBe(403);
    // An API error stays the API's JSON error, never the console's page.
    const api = await fetch(`${v2}/no-such-route`);
    expect(api.status).toBeGreaterThanOrEqual(400);
    expect(api.headers.get('content-type')).toMatch(/json/);
    expect(api.headers.get('content-security-policy')).toBeNull();
  });

  it('gives the preview page its own policy', async () => {
    const preview = await fetch(`${origin}/preview.html`);
    expect(preview.headers.get('content-security-policy')).toBe(PREVIEW_POLICY);
  });

  it('says in /config.json where the API and the pool are', () => {
    expect(config.apiBase).toBe(new URL(v2).pathname);
    expect(config.cognito.region).toBe(LOCAL_REGION);
    expect(config.cognito.userPoolId).toMatch(/^local_/);
    expect(config.cognito.clientId).toMatch(/^\w+$/);
    expect(config.cognito.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('[console.sign-in] Cognito as the browser calls it', () => {
  it('signs in, answers CORS to the console origin, and puts the group in the ID token', async () => {
    const email = await person('editor');
    const { idToken } = await signIn(email);
    const claims = claimsOf(idToken);
    expect(claims['cognito:groups']).toEqual(['editor']);
    expect(claims.email).toBe(email);
    expect(claims.token_use).toBe('id');
    expect(claims.aud).toBe(config.cognito.clientId);
    expect(claims.iss).toBe(`${config.cognito.endpoint}/${config.cognito.userPoolId}`);
    // One hour, as the stack's client says.
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);
    const answer = await cognitoCall('GetUser', { AccessToken: 'x' });
    expect(answer.cors).toBe('*');
  });

  it('makes a first sign-in set a password, and that session can be refreshed', async () => {
    const email = address('first');
    await cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: config.cognito.userPoolId,
        Username: email,
        TemporaryPassword: 'Temporary-1234!',
        MessageAction: 'SUPPRESS',
        UserAttributes: [{ Name: 'email', Value: email }],
      }),
    );
    const first = await cognitoCall('InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: config.cognito.clientId,
      AuthParameters: { USERNAME: email, PASSWORD: 'Temporary-1234!' },
    });
    expect(first.json.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
    const chosen = await cognitoCall('RespondToAuthChallenge', {
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      ClientId: config.cognito.clientId,
      Session: first.json.Session,
      ChallengeResponses: { USERNAME: email, NEW_PASSWORD: PASSWORD },
    });
    const tokens = chosen.json.AuthenticationResult as { RefreshToken: string };
    const refreshed = await cognitoCall('InitiateAuth', {
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: config.cognito.clientId,
      AuthParameters: { REFRESH_TOKEN: tokens.RefreshToken },
    });
    expect(refreshed.status).toBe(200);
    expect((refreshed.json.AuthenticationResult as { IdToken?: string }).IdToken).toBeTruthy();
  });
});

describe('[console.token] an ID token on the v2 keyed routes', () => {
  it('lets an admin do what a write key does', async () => {
    const { idToken } = await signIn(await person('admin'));
    expect((await call('GET', '/subscribers', idToken)).status).toBe(200);
    const created = await call('POST', '/subscribers', idToken, { email: address('sub') });
    expect(created.status).toBe(201);
    expect((await call('POST', '/issues', idToken, { subject: 'By an admin' })).status).toBe(201);
  });

  it('[console.roles] lets an editor work on issues and read lists, not subscribers', async () => {
    const { idToken } = await signIn(await person('editor'));
    const draft = await call('POST', '/issues', idToken, { subject: 'By an editor' });
    expect(draft.status).toBe(201);
    expect((await call('GET', `/issues/${draft.json.id}/report`, idToken)).status).toBe(200);
    expect((await call('GET', '/lists', idToken)).status).toBe(200);
    expect((await call('GET', '/newsletters', idToken)).status).toBe(200);
    const refused = await call('GET', '/subscribers', idToken);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'forbidden', data: { status: 403 } });
    expect((await call('POST', '/lists', idToken, { name: 'Editors may not' })).status).toBe(403);
  });

  it('refuses a person with no role (403), and an expired, foreign or forged token (401)', async () => {
    const { idToken } = await signIn(await person());
    const noRole = await call('GET', '/lists', idToken);
    expect(noRole.status).toBe(403);
    expect(noRole.json.code).toBe('forbidden');

    const editorToken = (await signIn(await person('editor'))).idToken;
    const claims = claimsOf(editorToken);
    const now = Math.floor(Date.now() / 1000);
    const expired = forged({ ...claims, iat: now - 7200, exp: now - 3600 });
    const refusedExpired = await call('GET', '/lists', expired);
    expect(refusedExpired.status).toBe(401);
    expect(refusedExpired.json).toMatchObject({ code: 'tnp_auth_error', data: { status: 401 } });
    // The same claims, still valid, are accepted: only the expiry was wrong above.
    expect((await call('GET', '/lists', forged({ ...claims, exp: now + 600 }))).status).toBe(200);

    // A real token of another pool of the same Cognito (same signing key): its issuer differs.
    const other = await cognito.send(new CreateUserPoolCommand({ PoolName: 'another' }));
    const otherPool = other.UserPool?.Id ?? '';
    const otherClient = await cognito.send(
      new CreateUserPoolClientCommand({ UserPoolId: otherPool, ClientName: 'other' }),
    );
    await cognito.send(new CreateGroupCommand({ UserPoolId: otherPool, GroupName: 'admin' }));
    const foreigner = await person('admin', otherPool);
    const foreign = await signIn(foreigner, otherClient.UserPoolClient?.ClientId);
    expect((await call('GET', '/lists', foreign.idToken)).status).toBe(401);
    // Another client of this pool: not the console's audience.
    expect(
      (await call('GET', '/lists', forged({ ...claims, aud: 'another-client', exp: now + 600 })))
        .status,
    ).toBe(401);
    expect((await call('GET', '/lists', 'not-a-token')).status).toBe(401);
    expect((await call('GET', '/lists', '')).status).toBe(401);
  });

  it('[console.token-public] on a public route a valid token widens the view, any other is ignored', async () => {
    const { idToken } = await signIn(await person('editor'));
    const draft = await call('POST', '/issues', idToken, { subject: 'Not sent yet' });
    const signedIn = await call('GET', `/newsletters/${draft.json.id}`, idToken);
    expect(signedIn.status).toBe(200);
    // A stray bearer header of a browser client is not a credential: the public answer.
    const stray = await call('GET', `/newsletters/${draft.json.id}`, 'site-token-123');
    expect(stray.status).not.toBe(200);
    expect(stray.status).not.toBe(401);
    expect((await call('GET', '/newsletters', 'site-token-123')).status).toBe(200);
  });

  it('[console.token-abuse] failed token checks count toward the keyless rate limit: over it, 429', async () => {
    service.setSettings({ public_rate_limit: { max_requests: 3, window_minutes: 10 } });
    try {
      const client = '127.0.0.78';
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const answer = await send(v2, {
          method: 'GET',
          path: `${new URL(v2).pathname}/lists`,
          headers: { authorization: 'Bearer forged.token.here' },
          localAddress: client,
        });
        statuses.push(answer.status);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      service.resetSettings();
    }
  });
});
