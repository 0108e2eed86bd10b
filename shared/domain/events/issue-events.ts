import type { NewsletterEvent } from './event-catalogue.ts';
import { eventId, sequenceOf } from './event-id.ts';

/** What of an issue item its events read (the newsletter item, `NEWSLETTER#<id>`/`newsletter`). */
export interface IssueImage {
  readonly id: number;
  readonly subject: string;
  readonly status: string;
  readonly run?: number;
  readonly lists?: readonly number[];
  readonly scheduled_at?: string;
  readonly pause_reason?: string;
  readonly total?: number;
  readonly sent?: number;
  readonly skipped?: number;
  readonly failed?: number;
}

/** A change of an issue item as the table's stream reports it. */
export interface IssueItemChange {
  readonly before?: IssueImage;
  readonly after?: IssueImage;
  readonly at: Date;
  /**
   * The stream record's `eventID` and `SequenceNumber`: an issue item has no version, and its
   * status may come back (paused, sending, paused again), so the record tells one change from
   * another. Every record of one item is on one stream shard, in order of its changes.
   */
  readonly streamEventId: string;
  readonly streamSequence: string;
}

/**
 * The events of one change of an issue ([events.issue]): a move to another status. The
 * counts a sending issue updates every second make none.
 */
export function issueEvents(change: IssueItemChange): NewsletterEvent[] {
  const { before, after } = change;
  if (!after || before?.status === after.status) return [];
  const base = {
    issue_id: after.id,
    time: change.at.toISOString(),
    sequence: sequenceOf(change.streamSequence.replace(/\D/g, '') || '0'),
  };
  const id = (type: string) => eventId('issue', String(after.id), type, change.streamEventId);
  const subject = after.subject;
  switch (after.status) {
    case 'scheduled':
      return [
        {
          ...base,
          id: id('issue.scheduled'),
          type: 'issue.scheduled',
          data: { subject, scheduled_at: after.scheduled_at ?? base.time },
        },
      ];
    case 'sending':
      return [
        {
          ...base,
          id: id('issue.sending'),
          type: 'issue.sending',
          data: { subject, run: after.run ?? 1, lists: [...(after.lists ?? [])] },
        },
      ];
    case 'paused':
      return [
        {
          ...base,
          id: id('issue.paused'),
          type: 'issue.paused',
          data: { subject, reason: after.pause_reason ?? 'operator' },
        },
      ];
    case 'sent':
      return [
        {
          ...base,
          id: id('issue.sent'),
          type: 'issue.sent',
          data: {
            subject,
            run: after.run ?? 1,
            total: after.total ?? 0,
            sent: after.sent ?? 0,
            skipped: after.skipped ?? 0,
            failed: after.failed ?? 0,
          },
        },
      ];
    case 'cancelled':
      return [{ ...base, id: id('issue.cancelled'), type: 'issue.cancelled', data: { subject } }];
    default:
      return [];
  }
}
