import type { PublishedMarks } from '../events/event-ports.ts';
import { DynamoBatches } from './dynamo-batches.ts';
import { type DynamoRequests, epochSeconds } from './dynamo-requests.ts';
import { KEY, keys, TTL_ATTRIBUTE } from './table-design.ts';

/**
 * How long a published event's mark is kept: longer than the events queue keeps a message (14
 * days with its dead letters) and the stream a record (24 hours), so nothing that could bring an
 * event back outlives its mark.
 */
export const PUBLISHED_MARK_DAYS = 15;

/** `EVENT#<id>` items: one per event on the bus (docs/storage.md, "Events"). */
export class DynamoPublishedMarks implements PublishedMarks {
  readonly #batches: DynamoBatches;

  constructor(requests: DynamoRequests, table: string) {
    this.#batches = new DynamoBatches(requests, table);
  }

  async published(ids: readonly string[]): Promise<ReadonlySet<string>> {
    const found = await this.#batches.get(
      'eventMarks',
      [...new Set(ids)].map((id) => keys.publishedEvent(id)),
      { expression: '#pk', names: { '#pk': KEY.partition } },
    );
    return new Set(found.map((item) => String(item[KEY.partition]).slice('EVENT#'.length)));
  }

  async mark(ids: readonly string[], now: Date): Promise<void> {
    const expires = epochSeconds(now) + PUBLISHED_MARK_DAYS * 86_400;
    await this.#batches.put(
      'markEvents',
      [...new Set(ids)].map((id) => ({ ...keys.publishedEvent(id), [TTL_ATTRIBUTE]: expires })),
    );
  }
}
