import type { PersonTokenVerifier } from '../../adapters/people/person-token-port.ts';
import {
  DependencyError,
  type NewsletterError,
  newsletterError,
  unavailable,
} from '../../domain/errors.ts';
import { type Person, type PersonRole, roleCovers, roleOfGroups } from '../../domain/person.ts';
import type { Dependencies } from '../dependencies.ts';
import { withinRateLimit } from '../rate-limit.ts';

/** What checking a person's token uses: the verifier, and the store for the abuse limit. */
export type PersonCheckDependencies = Pick<Dependencies, 'store' | 'settings' | 'now' | 'log'> & {
  readonly people: PersonTokenVerifier;
};

/**
 * Checks a signed-in person's bearer token for a request that needs `needed` ([console.token]):
 * a valid ID token of the console's pool and client, not expired, whose `cognito:groups` give a
 * role that covers the need ([console.roles]). A token that fails counts toward the client's
 * keyless rate limit, as a failed key check does, and over that limit is a 429
 * ([console.token-abuse]); a valid token whose role falls short is a 403, not counted.
 */
export async function checkPersonToken(
  deps: PersonCheckDependencies,
  token: string,
  needed: PersonRole,
  clientIp: string | undefined,
): Promise<Person | NewsletterError> {
  let verified: Awaited<ReturnType<PersonTokenVerifier['verify']>>;
  try {
    verified = await deps.people.verify(token);
  } catch (error) {
    if (!(error instanceof DependencyError)) throw error;
    deps.log.error('dependency_unavailable', { dependency: error.dependency });
    return unavailable();
  }
  if (!verified) {
    const refused = newsletterError(
      'tnp_auth_error',
      'The sign-in token is not valid (expired, or not from this console); sign in again.',
    );
    deps.log.warn('person_token_refused', { reason: refused.message });
    if (!clientIp) return refused;
    const within = await withinRateLimit(deps.store, await deps.settings(), clientIp, deps.now());
    return within
      ? refused
      : newsletterError(
          'rate_limited',
          'Too many failed sign-in checks from this client; try later.',
        );
  }
  const role = roleOfGroups(verified.groups);
  if (!role)
    return newsletterError('forbidden', 'You have no role in this console; ask an admin for one.');
  if (!roleCovers(role, needed))
    return newsletterError('forbidden', `An ${role} may not do this; it needs an ${needed}.`);
  return { email: verified.email, role };
}

/**
 * A person on a public route ([console.token-public]): a valid token whose role covers the
 * method makes the call trusted; any other bearer header leaves it anonymous, as v1 ignores the
 * bearer headers browser clients of the original send with their public calls
 * ([http.cors-authorization]). Nothing is counted: an anonymous call is allowed anyway.
 */
export async function personOnPublicRoute(
  deps: Pick<PersonCheckDependencies, 'people'>,
  token: string,
  needed: PersonRole,
): Promise<Person | undefined> {
  const verified = await deps.people.verify(token).catch((error: unknown) => {
    if (error instanceof DependencyError) return undefined;
    throw error;
  });
  const role = verified ? roleOfGroups(verified.groups) : undefined;
  return verified && role && roleCovers(role, needed) ? { email: verified.email, role } : undefined;
}
