/**
 * One rate for a whole campaign ([campaign.pacing]). A run's rate R (mails per second, all
 * workers together) is cut into send slots `spacingMs` apart on one time line that every
 * worker reserves from (the campaign store's pace item): each reservation takes the next
 * `block` slots after every slot reserved before, so no two slots of the campaign are closer
 * than `spacingMs`, in whichever worker or container they were reserved. A worker sends at a
 * slot's time, or drops the slot once it is more than LATE_SLOT_MS late. So the sends of any
 * 1-second window started at slots inside an open span of 1,000 + LATE_SLOT_MS ms, which
 * holds fewer than (1,000 + WINDOW_SLACK_MS) / spacingMs = floor(R) slots: at most R, for any
 * number of workers, with WINDOW_SLACK_MS − LATE_SLOT_MS left for the send's latency to vary.
 */
export interface Pace {
  /** Time between two slots of the campaign, whichever workers take them. */
  readonly spacingMs: number;
  /** Slots one reservation takes: about a second of one worker's share. */
  readonly block: number;
  /**
   * Whether the workers cannot reach the rate at all, so no slot is reserved: above
   * UNPACED_PER_LANE sends a second per lane in flight (a lane's send is three calls, a claim,
   * SES and a record, which take more than 5 ms together).
   */
  readonly unpaced: boolean;
}

/** Sends a second one lane cannot exceed (its three calls take more than 5 ms). */
export const UNPACED_PER_LANE = 200;
/**
 * How far ahead of its clock a worker reserves: the reservation's write takes a few
 * milliseconds, and a first slot already past when the answer comes would be dropped.
 */
export const RESERVE_LEAD_MS = 20;

/** Slack added to the second that floor(R) slots span (latency of a send varies). */
export const WINDOW_SLACK_MS = 40;
/** How late a slot may still be used; a later one is dropped, never sent in a bunch. */
export const LATE_SLOT_MS = 10;

/**
 * The pace of a run at `rate` mails per second sent by up to `workers` workers with
 * `inFlight` sends in flight each.
 */
export function paceFor(rate: number, workers: number, inFlight: number): Pace {
  if (!(rate > 0) || !Number.isInteger(workers) || workers < 1)
    throw new RangeError(`no pace for rate ${rate} over ${workers} workers`);
  // Whole mails per window: 11.2 per second allows 11 in any second, never 12.
  const perWindow = rate >= 1 ? Math.floor(rate) : rate;
  const spacingMs = (1000 + WINDOW_SLACK_MS) / perWindow;
  return {
    spacingMs,
    block: Math.max(1, Math.min(50, Math.ceil(rate / workers))),
    unpaced: rate >= workers * inFlight * UNPACED_PER_LANE,
  };
}

/** The times of `count` slots from `start`, `spacingMs` apart. */
export function slotTimes(start: number, count: number, pace: Pace): number[] {
  return Array.from({ length: count }, (_, index) => start + index * pace.spacingMs);
}

/**
 * Takes the next slot of `slots` (ascending, epoch ms) that is not too late at `now`, dropping
 * the late ones: undefined when none is left.
 */
export function takeSlot(slots: number[], now: number): number | undefined {
  while (slots.length > 0) {
    const slot = slots.shift() as number;
    if (now - slot <= LATE_SLOT_MS) return slot;
  }
  return undefined;
}
