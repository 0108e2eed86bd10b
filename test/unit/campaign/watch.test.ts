import { describe, expect, it } from 'vitest';
import { watchFigures } from '../../../cli/campaigns/watch-campaign.ts';

describe('[campaign.watch] the rate and the time left', () => {
  it('come from the readings: 50 settled in 5 s of 1,000 is 10 a second and 85 s left', () => {
    const figures = watchFigures(
      [
        { at: 0, settled: 100 },
        { at: 5_000, settled: 150 },
      ],
      1_000,
    );
    expect(figures).toEqual({ settled: 150, total: 1_000, rate: 10, secondsLeft: 85 });
  });

  it('are unknown before two readings or without progress', () => {
    expect(watchFigures([{ at: 0, settled: 3 }], 10)).toEqual({ settled: 3, total: 10, rate: 0 });
    expect(
      watchFigures(
        [
          { at: 0, settled: 3 },
          { at: 1000, settled: 3 },
        ],
        10,
      ).secondsLeft,
    ).toBeUndefined();
  });
});
