/**
 * The pieces of a person's sign-in check without a stack: which role each v2 method needs
 * (from the route table), how groups become a role, the temporary password's shape, and a
 * pool whose keys cannot be fetched (503, never a pass).
 */
import { createSign, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type HttpMethod, type Route, roleNeeded, routes } from '../../../functions/routes.ts';
import { CognitoTokenVerifier } from '../../../shared/adapters/people/cognito-token-verifier.ts';
import { DependencyError } from '../../../shared/domain/errors.ts';
import { roleCovers, roleOfGroups, temporaryPassword } from '../../../shared/domain/person.ts';
import { checkPersonToken } from '../../../shared/operations/v2/check-person-token.ts';
import { startDeadEndpoint } from '../../support/dead-endpoint.ts';
import { RecordingLogger } from '../../support/fixtures.ts';

describe('[console.roles] the role each v2 method needs', () => {
  it("lets an editor do the issue routes, read newsletters, lists and the profile fields (the editor's tags), and see the account before a send, and nothing else", () => {
    const editor = (routes as readonly Route[])
      .filter((route) => route.version === 'v2')
      .flatMap((route) =>
        route.methods
          .filter((method: HttpMethod) => roleNeeded(route, method) === 'editor')
          .map((method) => `${method} ${route.path}`),
      )
      .sort();
    expect(editor).toEqual(
      [
        'POST /issues',
        'PUT /issues/{id}',
        'POST /issues/{id}/copy',
        'POST /issues/{id}/test',
        'POST /issues/{id}/send',
        'POST /issues/{id}/pause',
        'POST /issues/{id}/resume',
        'POST /issues/{id}/schedule',
        'DELETE /issues/{id}/schedule',
        'POST /issues/{id}/cancel',
        'GET /issues/{id}/report',
        'GET /issues/{id}/audience',
        'GET /account',
        'GET /newsletters',
        'GET /newsletters/{id}',
        'GET /lists',
        'GET /lists/{id}',
        'GET /extrafields',
        'GET /extrafields/{id}',
      ].sort(),
    );
  });

  it('[report.editor] gives a report as JSON to an editor and its CSV, every address, to admins only', () => {
    const csvAnswers = (routes as readonly Route[])
      .filter((route) => route.version === 'v2' && route.csv?.answer !== undefined)
      .map((route) => `${route.path} ${roleNeeded(route, 'GET', true)}`);
    expect(csvAnswers.sort()).toEqual(['/issues/{id}/report admin', '/subscribers admin']);
    const report = (routes as readonly Route[]).find((route) => route.name === 'v2-issue-report');
    if (!report) throw new Error('no report route');
    expect(roleNeeded(report, 'GET')).toBe('editor');
  });

  it('makes admin the highest group, and no group no role', () => {
    expect(roleOfGroups(['editor', 'admin'])).toBe('admin');
    expect(roleOfGroups(['editor'])).toBe('editor');
    expect(roleOfGroups(['readers'])).toBeUndefined();
    expect(roleOfGroups(undefined)).toBeUndefined();
    expect(roleOfGroups('admin')).toBeUndefined();
    expect(roleCovers('admin', 'editor')).toBe(true);
    expect(roleCovers('editor', 'admin')).toBe(false);
  });
});

describe('[people.manage] the temporary password', () => {
  it('has 20 characters of every class the pool asks for, and differs each time', () => {
    const made = new Set<string>();
    for (let i = 0; i < 50; i += 1) {
      const password = temporaryPassword();
      expect(password).toHaveLength(20);
      expect(password).toMatch(/[A-Z]/);
      expect(password).toMatch(/[a-z]/);
      expect(password).toMatch(/[0-9]/);
      expect(password).toMatch(/[!#%+\-=?@^_]/);
      expect(password).not.toMatch(/[O0Il1]/);
      made.add(password);
    }
    expect(made.size).toBe(50);
  });
});

describe('[console.token] a pool whose keys cannot be fetched', () => {
  it('fails as a dependency (503), never as a pass', async () => {
    const dead = await startDeadEndpoint();
    try {
      const verifier = new CognitoTokenVerifier({
        userPoolId: 'local_pool',
        clientId: 'client',
        issuerDomain: dead.url,
      });
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      const unsigned = `${part({ alg: 'RS256', typ: 'JWT', kid: 'k' })}.${part({
        iss: `${dead.url}/local_pool`,
        aud: 'client',
        token_use: 'id',
        email: 'ada@example.com',
        iat: now,
        exp: now + 600,
      })}`;
      const token = `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(privateKey, 'base64url')}`;
      await expect(verifier.verify(token)).rejects.toBeInstanceOf(DependencyError);
      const log = new RecordingLogger();
      const checked = await checkPersonToken(
        {
          people: verifier,
          log,
          now: () => new Date(),
          settings: () => Promise.reject(new Error('not read')),
          store: {} as never,
        },
        token,
        'editor',
        '127.0.0.1',
      );
      expect(checked).toMatchObject({ code: 'unavailable' });
      // A token of another issuer is refused without fetching anything.
      expect(await verifier.verify('not.a.token')).toBeUndefined();
    } finally {
      await dead.stop();
    }
  });
});
