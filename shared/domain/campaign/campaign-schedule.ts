import { type NewsletterError, newsletterError } from '../errors.ts';

/**
 * Sending an issue at a set time ([campaign.schedule], decisions part 10): one EventBridge
 * Scheduler `at()` schedule per scheduling, which fires once and deletes itself. What it sends
 * to the function it invokes, and what that function decides when it fires, live here.
 */

/** Minutes a schedule may fire after its time and still send, when the settings say nothing. */
export const DEFAULT_SCHEDULE_LATENESS_MINUTES = 15;

/** The furthest ahead an issue may be scheduled: a year, so a typo in the year is caught. */
const MAX_AHEAD_MS = 366 * 86_400_000;

/** What a schedule passes the function it invokes (its target's `Input`). */
export interface ScheduledSend {
  readonly newsletter_id: number;
  /** The time it was scheduled for, as stored on the issue (ISO, UTC, whole seconds). */
  readonly at: string;
  /** `{api_root}` of whoever scheduled it, for links when the settings have no public_base_url. */
  readonly api_root?: string;
}

/**
 * The time to send at, from what a caller wrote: an ISO 8601 time with a zone (`Z` or an
 * offset), in the future and within a year. EventBridge's `at()` counts whole seconds, so the
 * fraction is dropped. An error value names what is wrong.
 */
export function parseScheduleTime(value: unknown, now: Date): Date | NewsletterError {
  if (value === undefined || value === null || value === '')
    return newsletterError('missing_parameter', 'at is required');
  const text = typeof value === 'string' ? value.trim() : '';
  // A zone is required: "09:00" alone would be read in whatever zone the caller runs in.
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const time = iso.test(text) ? new Date(text) : undefined;
  if (!time || Number.isNaN(time.getTime()))
    return newsletterError(
      'invalid_parameter',
      'at must be an ISO 8601 time with a zone, e.g. 2026-12-01T09:00:00Z',
    );
  const at = new Date(Math.floor(time.getTime() / 1000) * 1000);
  if (at.getTime() <= now.getTime())
    return newsletterError('invalid_parameter', `at must be in the future (it is ${text})`);
  if (at.getTime() - now.getTime() > MAX_AHEAD_MS)
    return newsletterError('invalid_parameter', 'at must be within a year from now');
  return at;
}

/** The stored form of a schedule's time: ISO, UTC, whole seconds (`2026-12-01T09:00:00Z`). */
export function scheduleTimeText(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}

/** EventBridge Scheduler's one-time expression for a time, read in UTC: `at(2026-12-01T09:00:00)`. */
export function scheduleExpression(at: Date): string {
  return `at(${at.toISOString().slice(0, 19)})`;
}

/**
 * The schedule's name: one per issue and time (`newsletter-7-20261201T090000Z`), so a schedule
 * left over from an earlier scheduling of the same issue never collides with a new one.
 */
export function scheduleName(newsletterId: number, at: Date): string {
  return `newsletter-${newsletterId}-${at.toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
}

/** What a firing schedule does. */
export type FiringDecision =
  /** On time (within the lateness): the send starts. */
  | { readonly kind: 'send' }
  /** Later than the lateness allows: no send, the issue stays `scheduled`, marked missed. */
  | { readonly kind: 'late'; readonly lateByMs: number }
  /**
   * The issue is no longer scheduled for this time (unscheduled, rescheduled, sent by hand,
   * cancelled): a schedule left behind, which does nothing.
   */
  | { readonly kind: 'stale' };

/**
 * What a schedule that fires at `firedAt` does for an issue in `issue` ([campaign.schedule-late]):
 * it sends only if the issue is still `scheduled` for that very time and it fires no more than
 * `latenessMinutes` after it. A firing early (EventBridge fires at the time or after) counts
 * as on time.
 */
export function decideFiring(
  issue: { readonly status: string; readonly scheduled_at?: string },
  scheduledFor: string,
  firedAt: Date,
  latenessMinutes: number,
): FiringDecision {
  if (issue.status !== 'scheduled' || issue.scheduled_at !== scheduledFor) return { kind: 'stale' };
  const lateByMs = firedAt.getTime() - new Date(scheduledFor).getTime();
  return lateByMs > latenessMinutes * 60_000 ? { kind: 'late', lateByMs } : { kind: 'send' };
}

/**
 * Whether an issue is overdue ([campaign.schedule-overdue]): still `scheduled` more than
 * `latenessMinutes` after its time, whatever the cause (its schedule fired late, never fired,
 * or its starter failed before its write). No firing can send it any more (decideFiring would
 * find it late), so the operator must send or unschedule it.
 */
export function isScheduleOverdue(
  issue: { readonly status: string; readonly scheduled_at?: string },
  now: Date,
  latenessMinutes: number,
): boolean {
  if (issue.status !== 'scheduled' || !issue.scheduled_at) return false;
  return now.getTime() - Date.parse(issue.scheduled_at) > latenessMinutes * 60_000;
}
