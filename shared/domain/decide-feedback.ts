import type { SubscriberRecord } from './subscriber.ts';

/**
 * What the mail service reported about one sent mail, reduced to what the rules read. SES's
 * bounce types map onto two kinds: `Permanent` is a hard bounce; `Transient` and `Undetermined`
 * are soft bounces, since neither says the address is gone.
 */
export interface MailFeedback {
  readonly kind: 'hard-bounce' | 'soft-bounce' | 'complaint' | 'delivery';
  /** The mail service's id of the mail the feedback is about. */
  readonly mailId: string;
  /** The recipients it concerns, normalised as stored (trimmed, lower case). */
  readonly recipients: readonly string[];
  /** SES's own words, for the log line: `Permanent/General`, `abuse`, ... */
  readonly detail: string;
  /** The newsletter issue the mail was a campaign mail of (its SES tag), if it was one. */
  readonly newsletterId?: number;
}

/** Feedback about one recipient, with what judging it needs. */
export type RecipientFeedback =
  | { readonly kind: 'hard-bounce' | 'complaint' | 'delivery' }
  | {
      readonly kind: 'soft-bounce';
      readonly mailId: string;
      /** Soft bounces in a row that block (setting `transient_bounce_limit`). */
      readonly limit: number;
    };

/** What the feedback does to a subscriber. */
export type FeedbackOutcome =
  /** Now `B`: a hard bounce, or the soft-bounce limit reached. */
  | 'bounced'
  /** Now `P`. */
  | 'complained'
  /** One more soft bounce counted, below the limit. */
  | 'counted'
  /** A delivery ended a run of soft bounces. */
  | 'reset'
  /** Nothing to change (already blocked, already counted, nothing counted to reset). */
  | 'unchanged';

/** The decision: the outcome, and the subscriber to store when something changes. */
export interface FeedbackDecision {
  readonly outcome: FeedbackOutcome;
  /** The subscriber as it must be stored, before the version is bumped; absent: no write. */
  readonly next?: SubscriberRecord;
}

const UNCHANGED: FeedbackDecision = { outcome: 'unchanged' };

/**
 * The subscriber blocked with `status`, its soft-bounce count gone with the reason for it. A
 * blocked record never expires: it is what keeps mail from going to the address again.
 */
function blocked(current: SubscriberRecord, status: 'B' | 'P', now: Date): SubscriberRecord {
  const {
    transient_bounces: _count,
    transient_bounce_mail: _mail,
    expires_at: _expiry,
    ...rest
  } = current;
  return { ...rest, status, updated: now.toISOString() };
}

/**
 * The feedback rules (docs/behaviour.md, "Feedback"): a complaint makes any subscriber `P`; a
 * hard bounce makes it `B` unless it is `P` already (a complaint is the stronger fact and is
 * never downgraded); soft bounces are counted once per mail and the limit in a row makes it
 * `B`; a delivery clears the count. `B` and `P` get no mail, so nothing is counted for them.
 */
export function decideFeedback(
  current: SubscriberRecord,
  feedback: RecipientFeedback,
  now: Date,
): FeedbackDecision {
  const isBlocked = current.status === 'B' || current.status === 'P';
  switch (feedback.kind) {
    case 'complaint':
      return current.status === 'P'
        ? UNCHANGED
        : { outcome: 'complained', next: blocked(current, 'P', now) };
    case 'hard-bounce':
      return isBlocked ? UNCHANGED : { outcome: 'bounced', next: blocked(current, 'B', now) };
    case 'soft-bounce': {
      // SNS delivers at least once and Lambda retries: one mail's bounce counts once.
      if (isBlocked || current.transient_bounce_mail === feedback.mailId) return UNCHANGED;
      const count = (current.transient_bounces ?? 0) + 1;
      if (count >= feedback.limit) {
        return { outcome: 'bounced', next: blocked(current, 'B', now) };
      }
      return {
        outcome: 'counted',
        next: { ...current, transient_bounces: count, transient_bounce_mail: feedback.mailId },
      };
    }
    case 'delivery': {
      if (!current.transient_bounces) return UNCHANGED;
      const { transient_bounces: _count, transient_bounce_mail: _mail, ...rest } = current;
      return { outcome: 'reset', next: rest };
    }
  }
}
