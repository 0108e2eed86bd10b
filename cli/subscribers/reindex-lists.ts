import type { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import type { CliIo } from '../io.ts';
import { startProgress } from '../progress.ts';

/** Subscribers indexed at once. */
const LANES = 8;
/** Tries per subscriber whose record changes under the indexing (each re-reads it). */
const ATTEMPTS = 5;

/**
 * Builds the list index and the subscriber counts for a table whose subscribers were written
 * before they existed ([campaign.plan], [v2.paging-counts]): every subscriber, oldest first,
 * gets their entries, and is counted unless counted already, in a write conditional on the
 * version and counted mark read, so a change made meanwhile (which keeps both itself) wins.
 * Then both are marked complete: campaigns plan from the index, pages count. Running it again
 * writes the same entries again and counts nobody twice: it can be repeated after an
 * interruption.
 *
 * @returns the number of subscribers read.
 */
export async function reindexLists(store: DynamoStore, io: Pick<CliIo, 'stderr'>): Promise<number> {
  let count = 0;
  const progress = startProgress(
    io.stderr,
    'Indexing subscribers | {value} read | {duration_formatted}',
    0,
  );
  const records = store.allSubscribers({ order: 'oldest-first' });
  const lane = async (): Promise<void> => {
    for (;;) {
      const next = await records.next();
      if (next.done) return;
      // The listing holds neither the version nor the counted mark: read the record itself.
      let record = await store.getSubscriber(next.value.email);
      for (let attempt = 1; record && record.id === next.value.id; attempt += 1) {
        if (await store.indexSubscriber(record)) break;
        if (attempt >= ATTEMPTS)
          throw new Error(`subscriber ${record.id} kept changing; run it again`);
        record = await store.getSubscriber(record.email);
      }
      count += 1;
      progress.update(count);
    }
  };
  try {
    await Promise.all(Array.from({ length: LANES }, lane));
  } finally {
    progress.stop();
  }
  await store.markListIndexReady();
  return count;
}
