import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import {
  type BlockCounts,
  type CountCell,
  countChanges,
  currentHour,
} from '../../domain/subscriber-counts.ts';
import type { DynamoRequests } from './dynamo-requests.ts';
import {
  COUNT_SHARDS,
  COUNTED,
  countPartition,
  expiringCountFrom,
  KEY,
  keys,
} from './table-design.ts';

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

function cellKey(id: number, cell: CountCell): Record<string, string> {
  const shard = id % COUNT_SHARDS;
  return cell.kind === 'kept'
    ? keys.keptCount(shard, cell.block)
    : keys.expiringCount(shard, cell.hour, cell.block);
}

/**
 * The count updates of a subscriber change, to go in the same transaction as the change, so
 * the counts are never behind it ([v2.paging-counts]). `before` counts only if it was counted
 * (a subscriber stored before counting began adds its whole self on its first change).
 */
export function countWrites(
  table: string,
  before: SubscriberRecord | undefined,
  after: SubscriberRecord | undefined,
): TransactItems {
  const id = after?.id ?? before?.id ?? 0;
  return countChanges(before?.uncounted ? undefined : before, after).map((change) => {
    const names: Record<string, string> = {};
    const values: Record<string, number> = {};
    const adds = Object.entries(change.add).map(([attribute, amount], index) => {
      names[`#a${index}`] = attribute;
      values[`:a${index}`] = amount;
      return `#a${index} :a${index}`;
    });
    return {
      Update: {
        TableName: table,
        Key: cellKey(id, change.cell),
        UpdateExpression: `ADD ${adds.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    };
  });
}

/**
 * The condition a subscriber write adds so that what it counted from is what is stored: a
 * counting pass (`subscribers reindex`) may have counted the subscriber since it was read.
 */
export function countedCondition(current: SubscriberRecord): string {
  return current.uncounted ? `attribute_not_exists(${COUNTED})` : `attribute_exists(${COUNTED})`;
}

const numbers = (item: Record<string, unknown>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(item).filter(
      (entry): entry is [string, number] =>
        typeof entry[1] === 'number' && entry[0] !== KEY.partition && entry[0] !== KEY.sort,
    ),
  );

const blockOfKey = (sortKey: string): number => Number(sortKey.slice(sortKey.lastIndexOf('#') + 1));

/**
 * Every block's counts: per shard, one Query of the kept items and one of the expiring items
 * of hours not yet passed, eventually consistent (docs/storage.md states the reads).
 */
export async function readBlockCounts(
  requests: DynamoRequests,
  table: string,
  now: Date,
): Promise<Map<number, BlockCounts>> {
  const blocks = new Map<
    number,
    { kept: Record<string, number>; expiring: Record<string, number>[] }
  >();
  const block = (number: number) => {
    const found = blocks.get(number) ?? { kept: {}, expiring: [] };
    blocks.set(number, found);
    return found;
  };
  const read = async (shard: number, expiring: boolean): Promise<void> => {
    const input = {
      TableName: table,
      KeyConditionExpression: expiring
        ? '#pk = :pk AND #sk BETWEEN :from AND :to'
        : '#pk = :pk AND begins_with(#sk, :kept)',
      ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
      ExpressionAttributeValues: expiring
        ? {
            ':pk': countPartition(shard),
            ':from': expiringCountFrom(currentHour(now)),
            ':to': 'expiring#~',
          }
        : { ':pk': countPartition(shard), ':kept': 'kept#' },
    };
    for await (const items of requests.queryPages('readCounts', input)) {
      for (const item of items) {
        const counts = block(blockOfKey(String(item[KEY.sort])));
        if (expiring) counts.expiring.push(numbers(item));
        else
          for (const [attribute, value] of Object.entries(numbers(item)))
            counts.kept[attribute] = (counts.kept[attribute] ?? 0) + value;
      }
    }
  };
  await Promise.all(
    Array.from({ length: COUNT_SHARDS }, (_, shard) => [
      read(shard, false),
      read(shard, true),
    ]).flat(),
  );
  return blocks;
}
