import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  type BlockCounts,
  type CountCell,
  type CountChange,
  type CountedChange,
  currentHour,
  mergeCountChanges,
} from '../../domain/subscriber-counts.ts';
import { cancellationReasons, type DynamoRequests } from './dynamo-requests.ts';
import {
  COUNT_SHARDS,
  COUNTED_CHANGE_LIFETIME_SECONDS,
  countPartition,
  expiringCountFrom,
  KEY,
  keys,
  TTL_ATTRIBUTE,
} from './table-design.ts';

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** DynamoDB's most actions in one transaction. */
const MAX_TRANSACTION_ITEMS = 100;

function cellKey(shard: number, cell: CountCell): Record<string, string> {
  return cell.kind === 'kept'
    ? keys.keptCount(shard, cell.block)
    : keys.expiringCount(shard, cell.hour, cell.block);
}

function cellUpdate(table: string, shard: number, change: CountChange): TransactItems[number] {
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
      Key: cellKey(shard, change.cell),
      UpdateExpression: `ADD ${adds.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Groups of records whose marks and summed cells fit in one transaction each, in their order.
 * A batch's changes fall in few cells (consecutive ids share a block), so a group is mostly
 * its records' marks.
 */
function groupsOf(records: readonly CountedChange[]): CountedChange[][] {
  const groups: CountedChange[][] = [];
  let group: CountedChange[] = [];
  for (const record of records) {
    const next = [...group, record];
    if (group.length > 0 && next.length + cellsOf(next).length > MAX_TRANSACTION_ITEMS) {
      groups.push(group);
      group = [record];
    } else group = next;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

const cellsOf = (records: readonly CountedChange[]): CountChange[] =>
  mergeCountChanges(records.flatMap((record) => record.changes));

/**
 * Adds the changes of a batch of stream records to the counts, each record once however often
 * it is delivered: per group of records, one transaction of the summed cells (ADD, on one
 * count shard picked at random) and a mark per record, put only if absent. A mark already
 * there (a record delivered again) cancels the transaction; its record is left out and the
 * rest is written. docs/storage.md ("Counts from the stream") states the cost.
 */
export async function applyCountChanges(
  requests: DynamoRequests,
  table: string,
  records: readonly CountedChange[],
  now: Date,
  random: () => number = Math.random,
): Promise<void> {
  const counting = records.filter((record) => record.changes.length > 0);
  const expires = Math.floor(now.getTime() / 1000) + COUNTED_CHANGE_LIFETIME_SECONDS;
  for (let group of groupsOf(counting)) {
    while (group.length > 0) {
      const shard = Math.floor(random() * COUNT_SHARDS);
      const marks: TransactItems = group.map((record) => ({
        Put: {
          TableName: table,
          Item: { ...keys.countedChange(record.eventId), [TTL_ATTRIBUTE]: expires },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': KEY.partition },
        },
      }));
      const cells = cellsOf(group).map((change) => cellUpdate(table, shard, change));
      try {
        await requests.send(
          'countChanges',
          new TransactWriteCommand({ TransactItems: [...marks, ...cells] }),
        );
        break;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons?.includes('ConditionalCheckFailed')) throw error;
        // The marks are first, in the group's order: those refused are counted already.
        group = group.filter((_, index) => reasons[index] !== 'ConditionalCheckFailed');
      }
    }
  }
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
