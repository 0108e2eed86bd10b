import { afterEach, expect, it, vi } from 'vitest';
import { SYSTEM_CLOCK } from '../../../shared/operations/campaign/campaign-dependencies.ts';

afterEach(() => {
  vi.useRealTimers();
});

it('[campaign.pacing] the campaign sender’s real clock reads the system time and sleeps exactly as long as asked', async () => {
  // Fake timers stand in for the system: the clock must take both its time and its waits from it.
  vi.useFakeTimers();
  const start = Date.UTC(2026, 10, 27, 9);
  vi.setSystemTime(start);
  expect(SYSTEM_CLOCK.now()).toBe(start);
  let woke = false;
  const sleeping = SYSTEM_CLOCK.sleep(250).then(() => {
    woke = true;
  });
  await vi.advanceTimersByTimeAsync(249);
  expect(woke).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(woke).toBe(true);
  await sleeping;
  expect(SYSTEM_CLOCK.now()).toBe(start + 250);
});
