/**
 * The API key and settings cache (decisions part 5: "cached in the function for a short time
 * so that a rotated key takes effect without a deploy"), against the parameter-store stand-in
 * over SSM's protocol, with a clock under the test's control.
 */
import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ParameterStore,
  startParameterStore,
} from '../../infra/local/stand-ins/parameter-store.ts';
import { CachedParameters } from '../../shared/adapters/parameters/cached-parameters.ts';
import { DependencyError } from '../../shared/domain/errors.ts';
import { startDeadEndpoint } from '../support/dead-endpoint.ts';

const KEY = '/newsletter/api-key';
const SETTINGS = '/newsletter/settings';
const MAX_AGE_MS = 300_000;

let store: ParameterStore;
let ssm: SSMClient;
/** GetParameters calls that reached the stand-in. */
let fetches: string[][];
let clock: number;

beforeAll(async () => {
  store = await startParameterStore();
  ssm = new SSMClient({
    endpoint: store.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  // Count the calls the cache makes, without changing them.
  ssm.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'GetParametersCommand') {
        fetches.push([...((args.input as { Names?: string[] }).Names ?? [])]);
      }
      return next(args);
    },
    { step: 'initialize', name: 'countFetches' },
  );
});

afterAll(async () => {
  ssm?.destroy();
  await store?.stop();
});

beforeEach(() => {
  fetches = [];
  clock = 1_000_000;
  store.put(KEY, 'key-one', 'SecureString');
  store.put(SETTINGS, '{"v":1}');
});

const cache = () => new CachedParameters(ssm, MAX_AGE_MS, () => clock);

describe('[config.parameter-cache] CachedParameters', () => {
  it('fetches stale names together in one decrypted call and serves them from memory after', async () => {
    const parameters = cache();
    const first = await parameters.get([KEY, SETTINGS]);
    expect([...first]).toEqual([
      [KEY, 'key-one'],
      [SETTINGS, '{"v":1}'],
    ]);
    clock += MAX_AGE_MS - 1;
    await parameters.get([KEY, SETTINGS]);
    await parameters.get([SETTINGS]);
    expect(fetches).toEqual([[KEY, SETTINGS]]);
  });

  it('[config.key-rotation-lag] a rotated key takes effect once the cache lifetime has passed, not before', async () => {
    const parameters = cache();
    expect((await parameters.get([KEY])).get(KEY)).toBe('key-one');
    store.put(KEY, 'key-two', 'SecureString');
    clock += MAX_AGE_MS - 1;
    expect((await parameters.get([KEY])).get(KEY)).toBe('key-one');
    clock += 1;
    expect((await parameters.get([KEY])).get(KEY)).toBe('key-two');
    expect(fetches).toHaveLength(2);
  });

  it('caches a missing parameter too, and refetches only the names that went stale', async () => {
    const parameters = cache();
    expect((await parameters.get(['/newsletter/none'])).get('/newsletter/none')).toBeUndefined();
    clock += 1_000;
    await parameters.get([KEY]);
    await parameters.get(['/newsletter/none', KEY]);
    expect(fetches).toEqual([['/newsletter/none'], [KEY]]);
  });

  it('turns an unreachable store into a DependencyError naming SSM', async () => {
    const dead = await startDeadEndpoint();
    const unreachable = new SSMClient({
      endpoint: dead.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    const failure = await new CachedParameters(unreachable, MAX_AGE_MS)
      .get([KEY])
      .catch((error: unknown) => error);
    unreachable.destroy();
    await dead.stop();
    expect(failure).toBeInstanceOf(DependencyError);
    expect((failure as DependencyError).dependency).toBe('ssm');
  });
});
