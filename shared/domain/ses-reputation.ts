/**
 * The bounce and complaint rates SES reviews an account by, and the levels at which it acts
 * (docs/behaviour.md, [v2.account]). The levels are SES's published ones: an account is
 * placed under review at a bounce rate of 5% or a complaint rate of 0.1%, and its sending may
 * be paused at 10% and 0.5% (Amazon SES Developer Guide, "Sending review process FAQs"; AWS
 * re:Post, "Why is my Amazon SES sending account under review or paused?").
 */

/** Where a rate stands against SES's levels; `none` when nothing was sent to judge by. */
export type ReputationState = 'none' | 'ok' | 'review' | 'pause';

/** SES's review and pause levels of one rate, as fractions (0.05 is 5%). */
export interface ReputationThresholds {
  readonly review_at: number;
  readonly pause_at: number;
}

/** The bounce rate: review at 5%, a pause possible at 10%. */
export const BOUNCE_THRESHOLDS: ReputationThresholds = { review_at: 0.05, pause_at: 0.1 };
/** The complaint rate: review at 0.1%, a pause possible at 0.5%. */
export const COMPLAINT_THRESHOLDS: ReputationThresholds = { review_at: 0.001, pause_at: 0.005 };

/** One rate with its levels and where it stands. */
export interface ReputationRate extends ReputationThresholds {
  /** `count / attempts`, or null when there were no attempts. */
  readonly rate: number | null;
  readonly state: ReputationState;
}

/** A rate of `count` in `attempts` judged against `thresholds`. */
export function judgeRate(
  count: number,
  attempts: number,
  thresholds: ReputationThresholds,
): ReputationRate {
  if (attempts <= 0) return { rate: null, ...thresholds, state: 'none' };
  const rate = count / attempts;
  const state =
    rate >= thresholds.pause_at ? 'pause' : rate >= thresholds.review_at ? 'review' : 'ok';
  return { rate, ...thresholds, state };
}
