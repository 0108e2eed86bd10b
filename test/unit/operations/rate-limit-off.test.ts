import { describe, expect, it } from 'vitest';
import type { Store } from '../../../shared/adapters/store/store-port.ts';
import { withinRateLimit } from '../../../shared/operations/rate-limit.ts';
import { testSettings } from '../../support/fixtures.ts';

/** A table's request counters as the rate limit sees them: it records what is counted. */
function counters() {
  const counted: { key: string; limit: number }[] = [];
  const port: Pick<Store, 'countRequest'> = {
    countRequest: async (key, limit) => {
      counted.push({ key, limit });
      return counted.filter((entry) => entry.key === key).length <= limit;
    },
  };
  // withinRateLimit takes the whole Store but calls countRequest only.
  return { store: port as Store, counted };
}

describe('[subscribe.rate-limit] the per-IP limit of keyless calls', () => {
  const now = new Date('2026-11-27T10:00:00Z');
  const ip = '203.0.113.7';

  it('[subscribe.rate-limit] max_requests 0 turns it off: every call proceeds and nothing is counted', async () => {
    const { store, counted } = counters();
    const off = testSettings({ public_rate_limit: { max_requests: 0, window_minutes: 10 } });
    const answers = [];
    for (let call = 0; call < 3; call += 1)
      answers.push(await withinRateLimit(store, off, ip, now));
    expect(answers).toEqual([true, true, true]);
    expect(counted).toEqual([]);
  });

  it('[subscribe.rate-limit] with a limit, each call is counted under a key that does not hold the address', async () => {
    const { store, counted } = counters();
    const on = testSettings({ public_rate_limit: { max_requests: 2, window_minutes: 10 } });
    const answers = [];
    for (let call = 0; call < 3; call += 1) answers.push(await withinRateLimit(store, on, ip, now));
    expect(answers).toEqual([true, true, false]);
    expect(counted).toHaveLength(3);
    expect(counted.map((entry) => entry.key).join()).not.toContain(ip);
  });
});
