import { setTimeout as sleep } from 'node:timers/promises';
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DependencyError } from '../../domain/errors.ts';
import type { DynamoRequests } from './dynamo-requests.ts';

type Item = Record<string, unknown>;

/** Keys per BatchGetItem and items per BatchWriteItem, DynamoDB's limits. */
export const BATCH_GET_KEYS = 100;
export const BATCH_WRITE_ITEMS = 25;
/** Batch calls of one page in flight at once. */
export const BATCH_PARALLEL = 4;
/** Rounds of retrying what a batch call left unprocessed (throttling) before giving up. */
const UNPROCESSED_ROUNDS = 8;

/**
 * The batch calls of the campaign stores: each retries what DynamoDB left unprocessed, waiting
 * longer before each round. `pause` waits; tests pass one that records the waits instead.
 */
export class DynamoBatches {
  constructor(
    private readonly requests: DynamoRequests,
    private readonly table: string,
    private readonly pause: (ms: number) => Promise<void> = sleep,
  ) {}

  /** Reads items by key, consistently, in batches of DynamoDB's limit. */
  async get(
    operation: string,
    itemKeys: readonly Item[],
    projection?: { readonly expression: string; readonly names: Record<string, string> },
  ): Promise<Item[]> {
    const found: Item[] = [];
    await inParallel(slices(itemKeys, BATCH_GET_KEYS), BATCH_PARALLEL, async (batch) => {
      let pending: Item[] = batch;
      for (let round = 0; pending.length > 0; round += 1) {
        await this.#beforeRound(round, pending.length, 'keys');
        const output = await this.requests.send<{
          Responses?: Record<string, Item[]>;
          UnprocessedKeys?: Record<string, { Keys?: Item[] }>;
        }>(
          operation,
          new BatchGetCommand({
            RequestItems: {
              [this.table]: {
                Keys: pending,
                ConsistentRead: true,
                ...(projection
                  ? {
                      ProjectionExpression: projection.expression,
                      ExpressionAttributeNames: projection.names,
                    }
                  : {}),
              },
            },
          }),
        );
        found.push(...(output.Responses?.[this.table] ?? []));
        pending = output.UnprocessedKeys?.[this.table]?.Keys ?? [];
      }
    });
    return found;
  }

  /** Puts items, unconditionally, in batches of DynamoDB's limit. */
  async put(operation: string, items: readonly Item[]): Promise<void> {
    const requests = items.map((Item) => ({ PutRequest: { Item } }));
    await inParallel(slices(requests, BATCH_WRITE_ITEMS), BATCH_PARALLEL, async (batch) => {
      let pending: typeof batch = batch;
      for (let round = 0; pending.length > 0; round += 1) {
        await this.#beforeRound(round, pending.length, 'items');
        const output = await this.requests.send<{
          UnprocessedItems?: Record<string, typeof batch>;
        }>(operation, new BatchWriteCommand({ RequestItems: { [this.table]: pending } }));
        pending = output.UnprocessedItems?.[this.table] ?? [];
      }
    });
  }

  /** Gives up after UNPROCESSED_ROUNDS, and waits longer before each round after the first. */
  async #beforeRound(round: number, left: number, what: string): Promise<void> {
    if (round >= UNPROCESSED_ROUNDS)
      throw new DependencyError('dynamodb', {
        cause: new Error(`${left} ${what} left unprocessed`),
      });
    if (round > 0) await this.pause(Math.min(1000, 25 * 2 ** round));
  }
}

export function slices<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    result.push(items.slice(start, start + size));
  return result;
}

/**
 * Runs `work` over `items` with at most `limit` at once. The first failure stops every lane
 * from taking another item, and is thrown once the items already under way have settled: when
 * the caller hears of it, nothing of this call is still writing, and what was not started
 * never will be.
 */
export async function inParallel<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const stop: { failure?: { readonly error: unknown } } = {};
  const lane = async (): Promise<void> => {
    while (!stop.failure && next < items.length) {
      const item = items[next] as T;
      next += 1;
      try {
        await work(item);
      } catch (error) {
        stop.failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (stop.failure) throw stop.failure.error;
}
