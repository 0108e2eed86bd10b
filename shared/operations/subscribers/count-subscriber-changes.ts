import type { Store } from '../../adapters/store/store-port.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import { countChanges } from '../../domain/subscriber-counts.ts';

/** A change of a subscriber item as the table's stream reports it: either image may be absent. */
export interface SubscriberChange {
  /** The stream record's `eventID`. */
  readonly eventId: string;
  readonly before?: SubscriberRecord;
  readonly after?: SubscriberRecord;
}

/** A record counts only once it carries the counted mark (see `COUNTED`). */
const counted = (record: SubscriberRecord | undefined): SubscriberRecord | undefined =>
  record && !record.uncounted ? record : undefined;

/**
 * Keeps the subscriber counts ([v2.paging-counts]) from the table's stream: what each change
 * moved, summed over the batch and written in few transactions, off the path of the writes
 * themselves, so that sign-ups and imports never wait on a count item (docs/storage.md,
 * "Counts from the stream"). A change delivered twice is counted once.
 */
export async function countSubscriberChanges(
  store: Pick<Store, 'applyCountChanges'>,
  changes: readonly SubscriberChange[],
  now: Date,
): Promise<number> {
  const counting = changes.map((change) => ({
    eventId: change.eventId,
    changes: countChanges(counted(change.before), counted(change.after)),
  }));
  await store.applyCountChanges(counting, now);
  return counting.filter((change) => change.changes.length > 0).length;
}
