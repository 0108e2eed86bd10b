/**
 * DynamoDB's partition limits, per partition key value: at most 1,000 write units and 3,000
 * read units a second, for the table's partitions and for each global secondary index's
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html).
 * Each partition key value has a bucket that fills at its limit a second and holds at most one
 * second's worth: no burst pool, no adaptive capacity, no split for heat (docs/testing.md says
 * why). A request is let in while every partition it touches has units left, and what it
 * consumed is taken once DynamoDB Local has said how much that was, as DynamoDB charges after
 * the fact; a partition in debt refuses until it has earned the debt back.
 */

/** Reads and writes are limited apart. */
export type Direction = 'read' | 'write';

/** DynamoDB's limits per partition key value, a second. */
export const PARTITION_LIMITS: Readonly<Record<Direction, number>> = { read: 3000, write: 1000 };

/** A partition key value of a table or of one of its indexes. */
export interface Partition {
  readonly table: string;
  /** The index's name; undefined for the table itself. */
  readonly index: string | undefined;
  /** The partition key value, as text. */
  readonly value: string;
}

interface Bucket {
  units: number;
  at: number;
}

/** Buckets for every partition key value that has spent units lately. */
export class PartitionThroughput {
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;
  readonly #scale: number;
  #spends = 0;

  /**
   * @param scale divides the limits (a bench at some hundreds of writes a second then meets
   *   the pressure AWS meets at thousands); 1 is DynamoDB's own.
   * @param now milliseconds, injected by tests.
   */
  constructor(scale: number, now: () => number) {
    if (!(scale > 0)) throw new Error(`strict DynamoDB: the scale must be positive, not ${scale}`);
    this.#scale = scale;
    this.#now = now;
  }

  /** Units a second a partition takes in this direction. */
  limit(direction: Direction): number {
    return PARTITION_LIMITS[direction] / this.#scale;
  }

  /** The first of these partitions that has no units left, if any. */
  exhausted(direction: Direction, partitions: Iterable<Partition>): Partition | undefined {
    for (const partition of partitions) {
      const bucket = this.#buckets.get(keyOf(direction, partition));
      if (bucket && this.#refill(direction, bucket) <= 0) return partition;
    }
    return undefined;
  }

  /** Takes what a request consumed from a partition (it may go into debt). */
  spend(direction: Direction, partition: Partition, units: number): void {
    if (!(units > 0)) return;
    const key = keyOf(direction, partition);
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = { units: this.limit(direction), at: this.#now() };
      this.#buckets.set(key, bucket);
    }
    this.#refill(direction, bucket);
    bucket.units -= units;
    this.#spends += 1;
    if (this.#spends % 10_000 === 0) this.#forgetFull();
  }

  /** Forgets the state of a table's partitions (the table was deleted). */
  forgetTable(table: string): void {
    for (const key of this.#buckets.keys()) {
      if (key.split('\u0000')[1] === table) this.#buckets.delete(key);
    }
  }

  #refill(direction: Direction, bucket: Bucket): number {
    const now = this.#now();
    const limit = this.limit(direction);
    bucket.units = Math.min(limit, bucket.units + ((now - bucket.at) / 1000) * limit);
    bucket.at = now;
    return bucket.units;
  }

  // A full bucket is the same as none: every item's own partition would otherwise stay.
  #forgetFull(): void {
    for (const [key, bucket] of this.#buckets) {
      const direction = key.startsWith('read') ? 'read' : 'write';
      if (this.#refill(direction, bucket) >= this.limit(direction)) this.#buckets.delete(key);
    }
  }
}

function keyOf(direction: Direction, partition: Partition): string {
  return `${direction}\u0000${partition.table}\u0000${partition.index ?? ''}\u0000${partition.value}`;
}
