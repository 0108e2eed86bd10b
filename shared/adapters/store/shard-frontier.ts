import { KEY } from './table-design.ts';

/** One Query page of a partition of a spread key space, sorted by zero-padded id. */
export interface ShardRead {
  readonly Items?: Record<string, unknown>[];
  readonly LastEvaluatedKey?: Record<string, unknown>;
}

/**
 * Where a page read from several shards (the list index's, an issue's records) may end: the
 * lowest id a shard with more to read got to, or `ceiling` when none has more. Everything at
 * or below it has been read from every shard, so a page that stops there misses nobody.
 */
export function shardFrontier(reads: readonly ShardRead[], ceiling: number): number {
  let frontier = ceiling;
  for (const read of reads) {
    const items = read.Items ?? [];
    if (read.LastEvaluatedKey !== undefined && items.length > 0)
      frontier = Math.min(frontier, Number(items.at(-1)?.[KEY.sort]));
  }
  return frontier;
}
