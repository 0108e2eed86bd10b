import type { EngagementReading } from '../../adapters/mail/ses-engagement-event.ts';
import type { EngagementStore } from '../../adapters/store/engagement-store-port.ts';
import {
  type EngagementEvent,
  type EngagementOutcome,
  foldBatch,
} from '../../domain/engagement/engagement.ts';
import type { Dependencies } from '../dependencies.ts';

/** One message of a batch, read: its queue message id (for a partial batch response). */
export interface EngagementMessage {
  readonly messageId: string;
  readonly reading: EngagementReading;
}

/** What a batch came to: counts by outcome, and the messages to hand back for a retry. */
export interface EngagementBatchOutcome {
  readonly counts: Readonly<Record<EngagementOutcome | 'malformed' | 'ignored', number>>;
  /** Queue message ids whose event could not be recorded now (DynamoDB away). */
  readonly failed: readonly string[];
}

/** Events recorded at once: DynamoDB's per-item work is independent, the batch is not large. */
const IN_FLIGHT = 8;

/**
 * Records a batch of SES's open and click events ([engagement.batch], [engagement.dedupe],
 * [engagement.dropped]): the batch is folded first (a repeated SNS message and every open but
 * a person's earliest write nothing), then each event is recorded once in its own transaction.
 * An event of an unknown issue or recipient, or of a deleted subscriber, is dropped and counted
 * (`EngagementDropped` metric, by reason). An event that fails to record is handed back, with
 * every message that carried the same event, so the queue delivers it again; the rest of the
 * batch stands.
 */
export async function recordEngagement(
  deps: Pick<Dependencies, 'log' | 'metrics'> & { readonly engagement: EngagementStore },
  messages: readonly EngagementMessage[],
): Promise<EngagementBatchOutcome> {
  const counts: Record<EngagementOutcome | 'malformed' | 'ignored', number> = {
    first: 0,
    repeat: 0,
    duplicate: 0,
    unknown: 0,
    deleted: 0,
    malformed: 0,
    ignored: 0,
  };
  const events: EngagementEvent[] = [];
  const carriers = new Map<string, string[]>();
  for (const { messageId, reading } of messages) {
    if (reading.kind !== 'event') {
      counts[reading.kind] += 1;
      if (reading.kind === 'malformed')
        deps.log.warn('engagement_malformed', { message_id: messageId, issue: reading.issue });
      continue;
    }
    events.push(reading.event);
    carriers.set(reading.event.eventId, [
      ...(carriers.get(reading.event.eventId) ?? []),
      messageId,
    ]);
  }
  const folded = foldBatch(events);
  counts.duplicate += folded.repeats;
  const failed: string[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < folded.events.length) {
      const event = folded.events[next] as EngagementEvent;
      next += 1;
      try {
        counts[await deps.engagement.record(event)] += 1;
      } catch (error) {
        deps.log.warn('engagement_not_recorded', {
          newsletter_id: event.newsletterId,
          subscriber_id: event.subscriberId,
          kind: event.kind,
          cause: error instanceof Error ? error.name : typeof error,
        });
        failed.push(...(carriers.get(event.eventId) ?? []));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, folded.events.length) }, lane));
  // Dropped events are counted, and logged by reason (a metric has one dimension: the issue).
  const dropped = counts.unknown + counts.deleted;
  if (dropped) {
    deps.metrics.count('EngagementDropped', dropped);
    deps.log.info('engagement_dropped', { unknown: counts.unknown, deleted: counts.deleted });
  }
  const opens = events.filter((event) => event.kind === 'open').length;
  if (opens) deps.metrics.count('EngagementOpens', opens);
  if (events.length - opens) deps.metrics.count('EngagementClicks', events.length - opens);
  return { counts, failed };
}
