/**
 * A writer whose conditional write lost a race (shared/operations/retry-on-conflict.ts), on
 * fake timers: the waits between attempts are read off the clock, nothing really waits.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONFLICT, retryOnConflict } from '../../../shared/operations/retry-on-conflict.ts';
import { RecordingLogger } from '../../support/fixtures.ts';

/** Runs an `unsubscribe` whose writes lose `losses` races (Infinity: every one), to its end. */
async function racing(losses: number) {
  const log = new RecordingLogger();
  const attemptedAt: number[] = [];
  const answer = retryOnConflict('unsubscribe', log, async () => {
    attemptedAt.push(Date.now());
    return attemptedAt.length > losses ? 'written' : CONFLICT;
  });
  await vi.runAllTimersAsync();
  const waits = attemptedAt.slice(1).map((at, i) => at - (attemptedAt[i] ?? at));
  return { answer: await answer, waits, lines: log.lines };
}

describe('[subscribe.lost-race] a writer that lost a race reads again, and gives up after 12', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('[subscribe.lost-race] a write that wins on its third attempt is the answer, with no warning', async () => {
    const { answer, waits, lines } = await racing(2);
    expect(answer).toBe('written');
    expect(waits).toHaveLength(2);
    expect(lines).toEqual([]);
  });

  it('[subscribe.lost-race] after 12 lost races the call is the 503, and a contention warning names the operation', async () => {
    const { answer, waits, lines } = await racing(Number.POSITIVE_INFINITY);
    expect(answer).toMatchObject({ code: 'unavailable', status: 503 });
    expect(waits).toHaveLength(11);
    expect(lines).toEqual([
      { level: 'warn', event: 'contention', fields: { operation: 'unsubscribe', attempts: 12 } },
    ]);
  });

  it('[subscribe.lost-race] the longest waits the jitter allows start at 5 ms and double up to 200 ms', async () => {
    // The top of Math.random's range: each wait is then its bound.
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const { waits } = await racing(Number.POSITIVE_INFINITY);
    expect(waits).toEqual([5, 10, 20, 40, 80, 160, 200, 200, 200, 200, 200]);
  });
});
