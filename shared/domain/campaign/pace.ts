/**
 * Pacing of one campaign worker ([campaign.pacing]). A run's rate R (mails per second, all
 * workers together) is split over the N workers the queue's event source mapping allows at
 * most. Each worker keeps a sliding window: at most `perWindow` sends started in any
 * `windowMs`, and sends spread evenly inside it. So N workers together never start more than
 * N × floor(R / N) ≤ R sends in any second, measured where they start.
 */
export interface Pace {
  /** Sends one worker may start in any window. */
  readonly perWindow: number;
  readonly windowMs: number;
  /** The least time between two sends of one worker. */
  readonly spacingMs: number;
}

/**
 * Slack added to every window: a send's latency to SES varies by a few milliseconds, so two
 * sends started exactly a window apart may land in the same second at SES.
 */
export const WINDOW_SLACK_MS = 20;

/** The pace of one of `workers` workers sharing `rate` mails per second. */
export function paceFor(rate: number, workers: number): Pace {
  if (!(rate > 0) || !Number.isInteger(workers) || workers < 1)
    throw new RangeError(`no pace for rate ${rate} over ${workers} workers`);
  const share = rate / workers;
  if (share >= 1) {
    const perWindow = Math.floor(share);
    const windowMs = 1000 + WINDOW_SLACK_MS;
    return { perWindow, windowMs, spacingMs: windowMs / perWindow };
  }
  // Below one mail per second each: one mail per however many seconds it takes.
  const windowMs = Math.ceil(1000 / share) + WINDOW_SLACK_MS;
  return { perWindow: 1, windowMs, spacingMs: windowMs };
}

/**
 * How long a worker waits before its next send may start, given when its recent sends started
 * (epoch ms, oldest first; only the last `pace.perWindow` matter) and the time now.
 */
export function waitBeforeNext(started: readonly number[], now: number, pace: Pace): number {
  if (started.length === 0) return 0;
  const last = started[started.length - 1] ?? now;
  const spacing = last + pace.spacingMs - now;
  const window =
    started.length >= pace.perWindow
      ? (started[started.length - pace.perWindow] ?? now) + pace.windowMs - now
      : 0;
  // The window is the bound (rounded up); the spacing only smooths, and rounding it up too
  // would cost a millisecond per send at high rates.
  return Math.max(0, Math.floor(spacing), Math.ceil(window));
}
