import type { ClientKeyRecord } from '../../domain/client-key.ts';

/**
 * Where the named keys of API v2 live. Reads are what a function does on a cache miss; the
 * writes are the operator's (the CLI). Unavailability is thrown as a DependencyError.
 */
export interface ClientKeyStore {
  getClientKey(clientKey: string): Promise<ClientKeyRecord | undefined>;
  /** Stores a new key; false when that key exists already (never overwritten). */
  createClientKey(record: ClientKeyRecord): Promise<boolean>;
  /** Every key, newest first, revoked ones included. */
  listClientKeys(): Promise<ClientKeyRecord[]>;
  /** Marks a key revoked at `at`; false when there is no such key or it was revoked already. */
  revokeClientKey(clientKey: string, at: Date): Promise<boolean>;
}
