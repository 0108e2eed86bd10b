import { describe, expect, it } from 'vitest';
import type { Store } from '../../../shared/adapters/store/store-port.ts';
import {
  type ClientKeyRecord,
  generateClientCredentials,
  hashSecret,
  permits,
} from '../../../shared/domain/client-key.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import {
  ClientKeyCache,
  checkClientKey,
  type KeyCheckDependencies,
  MAX_KEY_CACHE_MS,
} from '../../../shared/operations/v2/check-client-key.ts';
import { RecordingLogger, TestClock, testSettings } from '../../support/fixtures.ts';

/** A key store that counts its reads, and a rate-limit store that counts the failures. */
function world(lifetimeMs = 60_000, limit = 20) {
  const { clientKey, clientSecret } = generateClientCredentials();
  const records = new Map<string, ClientKeyRecord>([
    [
      clientKey,
      {
        client_key: clientKey,
        name: 'test',
        permission: 'read',
        secret_hash: hashSecret(clientSecret),
        created: '2026-11-22T10:00:00.000Z',
      },
    ],
  ]);
  const reads: string[] = [];
  const counted: string[] = [];
  const clock = new TestClock();
  const deps: KeyCheckDependencies = {
    keys: {
      getClientKey: async (key) => {
        reads.push(key);
        return records.get(key);
      },
    },
    cache: new ClientKeyCache(lifetimeMs),
    store: {
      countRequest: async (key: string) => {
        counted.push(key);
        return counted.filter((each) => each === key).length <= limit;
      },
    } as unknown as Store, // Only countRequest is reached by a failed check.
    settings: async () =>
      testSettings({ public_rate_limit: { max_requests: limit, window_minutes: 10 } }),
    now: clock.now,
    log: new RecordingLogger(),
  };
  return { deps, clientKey, clientSecret, records, reads, counted, clock };
}

describe('checkClientKey', () => {
  it('[v2.key-cache] reads a key once per lifetime; a revocation counts from the next read', async () => {
    const { deps, clientKey, clientSecret, records, reads, clock } = world(60_000);
    const credentials = { clientKey, clientSecret };
    for (let i = 0; i < 5; i += 1) {
      const checked = await checkClientKey(deps, credentials, 'read', '192.0.2.1');
      expect(isNewsletterError(checked)).toBe(false);
    }
    expect(reads).toHaveLength(1);
    const record = records.get(clientKey);
    if (!record) throw new Error('no record');
    records.set(clientKey, { ...record, revoked: '2026-11-22T10:00:30.000Z' });
    clock.advance(59_000);
    expect(isNewsletterError(await checkClientKey(deps, credentials, 'read', undefined))).toBe(
      false,
    );
    clock.advance(1_000);
    const refused = await checkClientKey(deps, credentials, 'read', undefined);
    expect(refused).toMatchObject({ code: 'tnp_auth_error', status: 401 });
    expect(reads).toHaveLength(2);
  });

  it('[v2.key-cache] never trusts a read longer than 5 minutes, whatever the setting', () => {
    expect(new ClientKeyCache(3_600_000).lifetimeMs).toBe(MAX_KEY_CACHE_MS);
    expect(MAX_KEY_CACHE_MS).toBe(300_000);
    expect(new ClientKeyCache(-1).lifetimeMs).toBe(0);
  });

  it('[v2.keys] checks the secret on every request, cached or not', async () => {
    const { deps, clientKey, clientSecret } = world();
    await checkClientKey(deps, { clientKey, clientSecret }, 'read', undefined);
    const other = clientSecret === 'f'.repeat(40) ? 'e'.repeat(40) : 'f'.repeat(40);
    const wrong = await checkClientKey(deps, { clientKey, clientSecret: other }, 'read', undefined);
    expect(wrong).toMatchObject({ code: 'tnp_auth_error', message: 'Invalid secret' });
  });

  it('[v2.permissions] a read key is refused what needs write (403); write includes read', async () => {
    const { deps, clientKey, clientSecret } = world();
    expect(
      await checkClientKey(deps, { clientKey, clientSecret }, 'write', undefined),
    ).toMatchObject({
      code: 'forbidden',
      status: 403,
    });
    expect(permits('write', 'read')).toBe(true);
    expect(permits('write', 'write')).toBe(true);
    expect(permits('read', 'read')).toBe(true);
    expect(permits('read', 'write')).toBe(false);
  });

  it('[v2.key-abuse] counts each failed check for the client, none for a good one, and 429s over the limit', async () => {
    const { deps, clientKey, clientSecret, counted } = world(60_000, 2);
    await checkClientKey(deps, { clientKey, clientSecret }, 'read', '192.0.2.9');
    expect(counted).toHaveLength(0);
    const bad = { clientKey: 'e'.repeat(40), clientSecret: 'x' };
    const answers = [];
    for (let i = 0; i < 3; i += 1)
      answers.push(await checkClientKey(deps, bad, 'read', '192.0.2.9'));
    expect(answers.map((answer) => (isNewsletterError(answer) ? answer.status : 200))).toEqual([
      401, 401, 429,
    ]);
    expect(counted).toHaveLength(3);
    // A malformed key is refused without a read of the key store, and still counted.
    const malformed = await checkClientKey(
      deps,
      { clientKey: 'short', clientSecret: 'x' },
      'read',
      '192.0.2.10',
    );
    expect(malformed).toMatchObject({ code: 'tnp_auth_error' });
    expect(counted).toHaveLength(4);
  });
});
