/**
 * The API key and settings cache (decisions part 5: "cached in the function for a short time
 * so that a rotated key takes effect without a deploy"), read as the functions read them:
 * through the Parameters and Secrets extension (its local stand-in, which calls SSM's protocol
 * on the parameter-store stand-in), with a clock under the test's control.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ParametersExtension,
  startParametersExtension,
} from '../../infra/local/cloud/parameters-extension.ts';
import {
  type ParameterStore,
  startParameterStore,
} from '../../infra/local/stand-ins/parameter-store.ts';
import { CachedParameters } from '../../shared/adapters/parameters/cached-parameters.ts';
import { extensionParameterSource } from '../../shared/adapters/parameters/extension-source.ts';
import type { ParameterSource } from '../../shared/adapters/parameters/parameter-source.ts';
import { DependencyError } from '../../shared/domain/errors.ts';
import { startDeadEndpoint } from '../support/dead-endpoint.ts';

const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local', sessionToken: 'session' };

const KEY = '/newsletter/api-key';
const SETTINGS = '/newsletter/settings';
const MAX_AGE_MS = 300_000;

let store: ParameterStore;
let extension: ParametersExtension;
/** The reads the cache asked of the source, names per read. */
let fetches: string[][];
let clock: number;

beforeAll(async () => {
  store = await startParameterStore();
  extension = await startParametersExtension({
    functionName: 'test',
    environment: { PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'false' },
    credentials: CREDENTIALS,
    endpoint: store.endpoint,
  });
});

afterAll(async () => {
  await extension?.stop();
  await store?.stop();
});

beforeEach(() => {
  fetches = [];
  clock = 1_000_000;
  store.put(KEY, 'key-one', 'SecureString');
  store.put(SETTINGS, '{"v":1}');
});

/** The source as a function has it, counting what the cache asks of it. */
const functionSource = (token = CREDENTIALS.sessionToken): ParameterSource => {
  const source = extensionParameterSource({
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
    AWS_SESSION_TOKEN: token,
  });
  return (names) => {
    fetches.push([...names]);
    return source(names);
  };
};

const cache = () => new CachedParameters(functionSource(), MAX_AGE_MS, () => clock);

describe('[config.parameter-cache] CachedParameters', () => {
  it('fetches stale names together, decrypted, and serves them from memory after', async () => {
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

  it('turns a refused extension call into a DependencyError naming SSM', async () => {
    // A caller without the environment's session token is turned away by the extension.
    const failure = await new CachedParameters(functionSource('not-the-token'), MAX_AGE_MS)
      .get([KEY])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DependencyError);
    expect((failure as DependencyError).dependency).toBe('ssm');
  });

  it('turns an unreachable extension into a DependencyError naming SSM', async () => {
    const dead = await startDeadEndpoint();
    const source = extensionParameterSource({
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: new URL(dead.url).port,
      AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    });
    const failure = await source([KEY]).catch((error: unknown) => error);
    await dead.stop();
    expect(failure).toBeInstanceOf(DependencyError);
    expect((failure as DependencyError).dependency).toBe('ssm');
  });
});
