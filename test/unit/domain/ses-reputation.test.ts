import { describe, expect, it } from 'vitest';
import {
  BOUNCE_THRESHOLDS,
  COMPLAINT_THRESHOLDS,
  judgeRate,
} from '../../../shared/domain/ses-reputation.ts';

describe('judgeRate', () => {
  it("[v2.account] SES's levels: bounces review at 5% and may pause at 10%; complaints 0.1% and 0.5%", () => {
    expect(BOUNCE_THRESHOLDS).toEqual({ review_at: 0.05, pause_at: 0.1 });
    expect(COMPLAINT_THRESHOLDS).toEqual({ review_at: 0.001, pause_at: 0.005 });
  });

  it('[v2.account] a rate below the review level is ok; at it, review; at the pause level, pause', () => {
    const state = (count: number, attempts: number) =>
      judgeRate(count, attempts, BOUNCE_THRESHOLDS).state;
    expect(state(0, 100)).toBe('ok');
    expect(state(499, 10_000)).toBe('ok');
    expect(state(500, 10_000)).toBe('review');
    expect(state(999, 10_000)).toBe('review');
    expect(state(1_000, 10_000)).toBe('pause');
    expect(judgeRate(1, 1_000, COMPLAINT_THRESHOLDS).state).toBe('review');
    expect(judgeRate(4, 1_000, COMPLAINT_THRESHOLDS).state).toBe('review');
    expect(judgeRate(5, 1_000, COMPLAINT_THRESHOLDS).state).toBe('pause');
    expect(judgeRate(3, 12, BOUNCE_THRESHOLDS)).toEqual({
      rate: 0.25,
      review_at: 0.05,
      pause_at: 0.1,
      state: 'pause',
    });
  });

  it('[v2.account] nothing sent: no rate, state none', () => {
    expect(judgeRate(0, 0, COMPLAINT_THRESHOLDS)).toEqual({
      rate: null,
      review_at: 0.001,
      pause_at: 0.005,
      state: 'none',
    });
  });
});
