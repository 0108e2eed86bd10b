import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Named keys of API v2 (decisions part 11): a public `client_key` and a `client_secret`, each
 * 40 hexadecimal characters as the original makes them. Only a hash of the secret is stored.
 */

/** What a key may do: `read` reads, `write` reads and changes (the original's "read and write"). */
export type ClientKeyPermission = 'read' | 'write';

/** What a request needs of its key. */
export type ClientKeyNeed = ClientKeyPermission;

/** A key as stored: never the secret, only its SHA-256. */
export interface ClientKeyRecord {
  readonly client_key: string;
  readonly name: string;
  readonly permission: ClientKeyPermission;
  /** SHA-256 of the secret, hex. */
  readonly secret_hash: string;
  /** ISO time. */
  readonly created: string;
  /** ISO time of the revocation; a revoked key is kept so the listing shows it. */
  readonly revoked?: string;
}

/** The shape of a key and of a secret: 40 lower-case hex characters (160 random bits). */
export const CLIENT_KEY_PATTERN = /^[0-9a-f]{40}$/;

/** A fresh key and secret, 160 random bits each. */
export function generateClientCredentials(): { clientKey: string; clientSecret: string } {
  return {
    clientKey: randomBytes(20).toString('hex'),
    clientSecret: randomBytes(20).toString('hex'),
  };
}

/**
 * The stored form of a secret. A plain SHA-256 is enough here: the secret is 160 random bits,
 * so there is no dictionary to try (a slow hash protects guessable passwords), and a slow hash
 * would cost every cache miss tens of milliseconds of CPU.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Whether `secret` is the key's secret, in constant time (equal-length digests compared). */
export function secretMatches(record: ClientKeyRecord, secret: string): boolean {
  const presented = createHash('sha256').update(secret, 'utf8').digest();
  const stored = Buffer.from(record.secret_hash, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

/** Whether a key's permission covers what a request needs: `write` includes `read`. */
export function permits(permission: ClientKeyPermission, need: ClientKeyNeed): boolean {
  return permission === 'write' || need === 'read';
}
