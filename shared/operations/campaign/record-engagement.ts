import type { EngagementReading } from '../../adapters/mail/ses-engagement-event.ts';
import type { EngagementStore } from '../../adapters/store/engagement-store-port.ts';
import { ENGAGEMENT_SHARDS } from '../../adapters/store/table-design.ts';
import {
  type EngagementEvent,
  type EngagementOutcome,
  foldBatch,
  type TrackingMode,
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
  /** `campaign.tracking` the batch was recorded under. */
  readonly mode: TrackingMode;
  /** Queue message ids whose event could not be recorded now (DynamoDB away). */
  readonly failed: readonly string[];
}

/** Events recorded at once: DynamoDB's per-item work is independent, the batch is not large. */
const IN_FLIGHT = 8;

/**
 * Records a batch of SES's open and click events ([engagement.batch], [engagement.dedupe],
 * [engagement.dropped]) as `campaign.tracking` says ([engagement.modes]): the batch is folded
 * first (a repeated SNS message and every open but a person's earliest write nothing), then
 * each event is recorded once in its own transaction, by IN_FLIGHT lanes that each add to a
 * counter shard of their own. In `individual`, before anything per person is written, the store
 * notes that it may be ([engagement.switch]). An event of an unknown issue or recipient, or of a
 * deleted subscriber, is dropped and counted (`EngagementDropped` metric, by reason). An event
 * that fails to record is handed back, with every message that carried the same event, so the
 * queue delivers it again; the rest of the batch stands.
 */
export async function recordEngagement(
  deps: Pick<Dependencies, 'log' | 'metrics' | 'settings'> & {
    readonly engagement: EngagementStore;
  },
  messages: readonly EngagementMessage[],
): Promise<EngagementBatchOutcome> {
  const counts: Record<EngagementOutcome | 'malformed' | 'ignored', number> = {
    first: 0,
    repeat: 0,
    duplicate: 0,
    unknown: 0,
    deleted: 0,
    untracked: 0,
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
  const mode = (await deps.settings()).campaign.tracking;
  if (mode === 'individual' && folded.events.length > 0) await deps.engagement.markPersonal();
  const failed: string[] = [];
  let next = 0;
  // Lanes take consecutive shards from a random one: two lanes of a batch never race.
  const base = Math.floor(Math.random() * ENGAGEMENT_SHARDS);
  const lane = async (index: number): Promise<void> => {
    while (next < folded.events.length) {
      const event = folded.events[next] as EngagementEvent;
      next += 1;
      try {
        const shard = (base + index) % ENGAGEMENT_SHARDS;
        counts[await deps.engagement.record(event, { mode, shard })] += 1;
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
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, folded.events.length) }, (_, index) => lane(index)),
  );
  // Dropped events are counted, and logged by reason (a metric has one dimension: the issue).
  const dropped = counts.unknown + counts.deleted;
  if (dropped) {
    deps.metrics.count('EngagementDropped', dropped);
    deps.log.info('engagement_dropped', { unknown: counts.unknown, deleted: counts.deleted });
  }
  const opens = events.filter((event) => event.kind === 'open').length;
  if (opens) deps.metrics.count('EngagementOpens', opens);
  if (events.length - opens) deps.metrics.count('EngagementClicks', events.length - opens);
  return { counts, mode, failed };
}
