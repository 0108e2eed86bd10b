import { afterEach, expect, it, vi } from 'vitest';
import { ENV, readEnvironment } from '../../../shared/runtime/environment.ts';
import { serviceParameters } from '../../../shared/runtime/parameters.ts';

afterEach(() => {
  vi.useRealTimers();
});

it('[config.key-rotation-lag] a function built from NEWSLETTER_PARAMETER_CACHE_SECONDS keeps the key exactly that long', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const start = Date.UTC(2026, 10, 23, 12);
  vi.setSystemTime(start);
  let key = 'key-one';
  const reads: string[][] = [];
  const source = async (names: readonly string[]) => {
    reads.push([...names]);
    return new Map(names.map((name) => [name, name.endsWith('api-key') ? key : '{}']));
  };
  const parameters = serviceParameters(
    readEnvironment({ [ENV.table]: 't', [ENV.parameterCacheSeconds]: '300' }),
    source,
  );
  expect(await parameters.apiKey()).toBe('key-one');
  key = 'key-two';
  vi.setSystemTime(start + 299_999);
  expect(await parameters.apiKey()).toBe('key-one');
  vi.setSystemTime(start + 300_000);
  expect(await parameters.apiKey()).toBe('key-two');
  expect(reads).toHaveLength(2);
});

it('[config.parameter-cache] the lifetime defaults to 300 s', () => {
  expect(readEnvironment({ [ENV.table]: 't' }).parameterCacheMs).toBe(300_000);
});
