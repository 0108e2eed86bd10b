import type { ClientKeyStore } from '../../adapters/store/client-key-store-port.ts';
import {
  type ClientKeyPermission,
  type ClientKeyRecord,
  generateClientCredentials,
  hashSecret,
} from '../../domain/client-key.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';

/** What managing keys uses: the key store and the clock. */
export interface KeyManagementDependencies {
  readonly keys: ClientKeyStore;
  readonly now: () => Date;
}

/** A key just made: its record, and the secret, which exists nowhere else. */
export interface CreatedClientKey {
  readonly record: ClientKeyRecord;
  readonly clientSecret: string;
}

const NAME = /^[^\p{Cc}]{1,100}$/u;

/**
 * Makes a named key ([v2.keys]): 160 random bits for the key and for the secret; only the
 * secret's hash is stored, so the secret is shown this once.
 */
export async function createClientKey(
  deps: KeyManagementDependencies,
  name: string,
  permission: string,
): Promise<CreatedClientKey | NewsletterError> {
  const trimmed = name.trim();
  if (!NAME.test(trimmed))
    return newsletterError('invalid_parameter', 'name must be 1-100 characters, one line');
  if (permission !== 'read' && permission !== 'write')
    return newsletterError('invalid_parameter', 'permission must be read or write');
  const { clientKey, clientSecret } = generateClientCredentials();
  const record: ClientKeyRecord = {
    client_key: clientKey,
    name: trimmed,
    permission: permission satisfies ClientKeyPermission,
    secret_hash: hashSecret(clientSecret),
    created: deps.now().toISOString(),
  };
  // 160 random bits never collide in practice; a collision would be refused, not overwritten.
  if (!(await deps.keys.createClientKey(record)))
    return newsletterError('invalid_state', 'A key with this id exists already; try again.');
  return { record, clientSecret };
}

/** Every key, newest first, revoked ones included (their hashes are never shown). */
export function listClientKeys(deps: KeyManagementDependencies): Promise<ClientKeyRecord[]> {
  return deps.keys.listClientKeys();
}

/**
 * Revokes a key: refused from the next read of it, so within a function's key cache lifetime
 * (at most 5 minutes) everywhere ([v2.key-cache]).
 */
export async function revokeClientKey(
  deps: KeyManagementDependencies,
  clientKey: string,
): Promise<ClientKeyRecord | NewsletterError> {
  if (!(await deps.keys.revokeClientKey(clientKey, deps.now()))) {
    const record = await deps.keys.getClientKey(clientKey);
    return record
      ? newsletterError(
          'invalid_state',
          `Key ${clientKey} was revoked already (${record.revoked}).`,
        )
      : newsletterError('not_found', `There is no key ${clientKey}.`);
  }
  const record = await deps.keys.getClientKey(clientKey);
  if (!record) return newsletterError('not_found', `There is no key ${clientKey}.`);
  return record;
}
