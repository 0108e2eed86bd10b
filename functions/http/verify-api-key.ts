import { createHash, timingSafeEqual } from 'node:crypto';
import {
  DependencyError,
  type NewsletterError,
  newsletterError,
  unavailable,
} from '../../shared/domain/errors.ts';
import type { Logger } from '../../shared/operations/dependencies.ts';

/** How an endpoint uses the key: `required` refuses without it, `optional` widens access with it. */
export type KeyRequirement = 'required' | 'optional';

/** Reads the configured key; undefined when none is configured. Throws DependencyError. */
export type KeyLoader = () => Promise<string | undefined>;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Compares a presented key with the configured one in constant time. Both sides are hashed
 * first so that neither the length nor the position of the first wrong character shows in
 * the time taken.
 */
export function keysMatch(presented: string, configured: string): boolean {
  return timingSafeEqual(digest(presented), digest(configured));
}

/**
 * Decides whether a call is trusted (decisions part 5). Missing key: refused where required,
 * public where optional. Present but wrong: refused everywhere, never a silent downgrade. No
 * key configured: refused (403); store unreachable: 503. Fails closed in every doubt.
 */
export async function verifyApiKey(
  presented: unknown,
  requirement: KeyRequirement,
  loadKey: KeyLoader,
  log: Logger,
): Promise<{ trusted: boolean } | NewsletterError> {
  const forbidden = newsletterError('forbidden', 'The API key is missing or wrong.');
  if (presented === undefined || presented === null || presented === '') {
    return requirement === 'required' ? forbidden : { trusted: false };
  }
  if (typeof presented !== 'string') return forbidden;
  let configured: string | undefined;
  try {
    configured = await loadKey();
  } catch (error) {
    if (error instanceof DependencyError) {
      log.error('api_key_unavailable', { dependency: error.dependency });
      return unavailable();
    }
    throw error;
  }
  if (!configured) {
    log.error('api_key_not_configured', { reason: 'the key parameter does not exist or is empty' });
    return forbidden;
  }
  return keysMatch(presented, configured) ? { trusted: true } : forbidden;
}
