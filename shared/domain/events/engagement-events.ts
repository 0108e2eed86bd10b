import type { TrackingMode } from '../engagement/engagement.ts';
import type { NewsletterEvent } from './event-catalogue.ts';
import { eventId, sequenceOf } from './event-id.ts';

/** What of a recipient record (`RECIPIENTS#<issue>#<shard>`) its events read. */
export interface RecipientImage {
  readonly subscriber_id: number;
  readonly opened_at?: string;
  readonly clicked_at?: string;
}

/** A change of a recipient record as the table's stream reports it. */
export interface RecipientChange {
  readonly issueId: number;
  readonly before?: RecipientImage;
  readonly after?: RecipientImage;
  readonly at: Date;
  readonly streamSequence: string;
  /** `campaign.tracking` when the change is read. */
  readonly tracking: TrackingMode;
}

/**
 * The engagement events of one change of a recipient record ([events.engagement]): a first
 * open is `engagement.opened`, a first click `engagement.clicked`. A record keeps only the first
 * of each (its items stay bounded, docs/storage.md "Opens and clicks"), so a later click, like
 * a later open, makes none. Only under `individual` tracking: under
 * `counts` the service keeps per-person times only to count each person once, and no event
 * names a person; under `off` there is nothing to tell.
 */
export function engagementEvents(change: RecipientChange): NewsletterEvent[] {
  const { before, after } = change;
  if (change.tracking !== 'individual' || !after) return [];
  const base = {
    issue_id: change.issueId,
    subscriber_id: after.subscriber_id,
    time: change.at.toISOString(),
    sequence: sequenceOf(change.streamSequence.replace(/\D/g, '') || '0'),
    data: {},
  };
  const events: NewsletterEvent[] = [];
  const subject = [String(change.issueId), String(after.subscriber_id)];
  if (after.opened_at !== undefined && before?.opened_at === undefined)
    events.push({
      ...base,
      id: eventId('engagement', ...subject, 'opened'),
      type: 'engagement.opened',
      time: after.opened_at,
    });
  if (after.clicked_at !== undefined && before?.clicked_at === undefined)
    events.push({
      ...base,
      id: eventId('engagement', ...subject, 'clicked'),
      type: 'engagement.clicked',
      time: after.clicked_at,
    });
  return events;
}
