import type { ClientKeyStore } from '../../adapters/store/client-key-store-port.ts';
import {
  CLIENT_KEY_PATTERN,
  type ClientKeyNeed,
  type ClientKeyRecord,
  permits,
  secretMatches,
} from '../../domain/client-key.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { Dependencies } from '../dependencies.ts';
import { withinRateLimit } from '../rate-limit.ts';

/** Credentials as a request presented them (query string or HTTP Basic). */
export interface ClientCredentials {
  readonly clientKey: string;
  readonly clientSecret: string;
}

/** Longest a function trusts what it read of a key: a revoked key stops within 5 minutes. */
export const MAX_KEY_CACHE_MS = 300_000;

/** Most keys a function remembers; the oldest read is forgotten first. */
const MAX_CACHED_KEYS = 1000;

/**
 * What a function read of each key, and when: the record, or that there is none. Explicit
 * key (the public `client_key`) and lifetime; a revoked key is read again at the latest after
 * `lifetimeMs`, which is what bounds revocation ([v2.key-cache]).
 */
export class ClientKeyCache {
  readonly #entries = new Map<string, { record?: ClientKeyRecord; readAt: number }>();
  readonly lifetimeMs: number;

  constructor(lifetimeMs: number) {
    this.lifetimeMs = Math.min(Math.max(0, lifetimeMs), MAX_KEY_CACHE_MS);
  }

  /** The record as last read within the lifetime; `undefined` when it must be read. */
  get(clientKey: string, now: number): { record?: ClientKeyRecord } | undefined {
    const entry = this.#entries.get(clientKey);
    if (!entry || now - entry.readAt >= this.lifetimeMs) return undefined;
    return entry;
  }

  set(clientKey: string, record: ClientKeyRecord | undefined, now: number): void {
    this.#entries.delete(clientKey);
    if (this.#entries.size >= MAX_CACHED_KEYS) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(clientKey, { ...(record ? { record } : {}), readAt: now });
  }
}

/** What checking a key uses. */
export type KeyCheckDependencies = Pick<Dependencies, 'store' | 'settings' | 'now' | 'log'> & {
  readonly keys: Pick<ClientKeyStore, 'getClientKey'>;
  readonly cache: ClientKeyCache;
};

/** The 401 of an unknown key or a wrong secret, in the original's code ([v2.auth-errors]). */
function authError(message: string): NewsletterError {
  return newsletterError('tnp_auth_error', message);
}

/**
 * Checks presented credentials for a request that needs `need` ([v2.keys]): the key's record
 * comes from the cache or one GetItem, the secret is compared with its stored hash in
 * constant time, and the permission must cover the need (403 otherwise). A failed check counts
 * toward the client's keyless rate limit, as v1's abuse limits count, and over that limit is
 * a 429 ([v2.key-abuse]).
 */
export async function checkClientKey(
  deps: KeyCheckDependencies,
  credentials: ClientCredentials,
  need: ClientKeyNeed,
  clientIp: string | undefined,
): Promise<ClientKeyRecord | NewsletterError> {
  const failed = async (error: NewsletterError): Promise<NewsletterError> => {
    deps.log.warn('client_key_refused', { reason: error.message });
    if (!clientIp) return error;
    const within = await withinRateLimit(deps.store, await deps.settings(), clientIp, deps.now());
    return within
      ? error
      : newsletterError('rate_limited', 'Too many failed key checks from this client; try later.');
  };
  const { clientKey, clientSecret } = credentials;
  // A shape no key has is refused without a read: nothing to look up.
  if (!CLIENT_KEY_PATTERN.test(clientKey)) return failed(authError('API key not found'));
  const now = deps.now().getTime();
  let cached = deps.cache.get(clientKey, now);
  if (!cached) {
    const record = await deps.keys.getClientKey(clientKey);
    deps.cache.set(clientKey, record, now);
    cached = record ? { record } : {};
  }
  const record = cached.record;
  if (!record || record.revoked) return failed(authError('API key not found'));
  if (!secretMatches(record, clientSecret)) return failed(authError('Invalid secret'));
  if (!permits(record.permission, need))
    return newsletterError(
      'forbidden',
      `This key may ${record.permission} only; this needs ${need}.`,
    );
  return record;
}
