/**
 * Subscriber ids from blocks (docs/storage.md, "Ids"): one counter write per id while sign-ups
 * are few, a growing block while they come fast, and no block used for longer than its
 * lifetime, so ids of different processes stay close to creation order.
 */
import { describe, expect, it } from 'vitest';
import { IdBlocks } from '../../../shared/adapters/store/id-blocks.ts';

/** A counter as DynamoStore.reserveIds keeps it: each reservation returns its first id. */
function counter(): { reserve: (count: number) => Promise<number>; sizes: number[] } {
  let next = 1;
  const sizes: number[] = [];
  return {
    sizes,
    reserve: async (count) => {
      sizes.push(count);
      const first = next;
      next += count;
      return first;
    },
  };
}

describe('IdBlocks with adaptive, short-lived blocks', () => {
  const options = (clock: { now: number }) => ({
    size: 64,
    adaptive: true,
    lifetimeMs: 1_000,
    now: () => clock.now,
  });

  it('reserves one id at a time, without gaps, while calls come seconds apart', async () => {
    const clock = { now: 0 };
    const { reserve, sizes } = counter();
    const ids = new IdBlocks(reserve, options(clock));
    const taken: number[] = [];
    for (let call = 0; call < 5; call += 1) {
      taken.push(await ids.next());
      clock.now += 2_000;
    }
    expect(taken).toEqual([1, 2, 3, 4, 5]);
    expect(sizes).toEqual([1, 1, 1, 1, 1]);
  });

  it('doubles its blocks up to the most while they run out fast, so a burst writes the counter rarely', async () => {
    const clock = { now: 0 };
    const { reserve, sizes } = counter();
    const ids = new IdBlocks(reserve, options(clock));
    const taken: number[] = [];
    for (let call = 0; call < 500; call += 1) {
      taken.push(await ids.next());
      clock.now += 1;
    }
    expect(new Set(taken).size).toBe(500);
    expect(sizes.slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 64, 64]);
    expect(sizes.length).toBeLessThan(15);
  });

  it('drops a block after its lifetime, leaving its ids unused, and halves the next', async () => {
    const clock = { now: 0 };
    const { reserve, sizes } = counter();
    const ids = new IdBlocks(reserve, options(clock));
    for (let call = 0; call < 7; call += 1) await ids.next(); // blocks 1, 2, 4: ids 1–7
    await ids.next(); // a block of 8: id 8, 9–15 left
    clock.now += 1_000;
    const late = await ids.next();
    expect(late).toBe(16);
    expect(sizes).toEqual([1, 2, 4, 8, 4]);
  });

  it('shares one reservation among callers waiting at once', async () => {
    const clock = { now: 0 };
    const { reserve, sizes } = counter();
    const ids = new IdBlocks(reserve, options(clock));
    const taken = await Promise.all(Array.from({ length: 3 }, () => ids.next()));
    expect(new Set(taken).size).toBe(3);
    expect(sizes.length).toBeLessThanOrEqual(3);
  });
});
