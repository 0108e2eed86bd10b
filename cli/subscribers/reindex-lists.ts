import type { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import type { CliIo } from '../io.ts';
import { startProgress } from '../progress.ts';

/** Subscribers indexed at once. */
const LANES = 8;
/** Tries per subscriber whose record changes under the indexing (each re-reads it). */
const ATTEMPTS = 5;

/**
 * Builds the list index for a table whose subscribers were written before it existed
 * ([campaign.plan]): every subscriber, oldest first, gets their entries in a write conditional
 * on the version read, so a change made meanwhile (which keeps the index itself) wins. Then
 * the index is marked complete and campaigns plan from it. Running it again writes the same
 * entries again: it can be repeated after an interruption.
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
      let record = next.value;
      for (let attempt = 1; !(await store.indexSubscriber(record)); attempt += 1) {
        const now = await store.getSubscriber(record.email);
        if (!now || now.id !== record.id) break;
        if (attempt >= ATTEMPTS)
          throw new Error(`subscriber ${record.id} kept changing; run it again`);
        record = now;
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
