import type { QueryCommandInput, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { listsPlannedUnder } from '../../domain/campaign/recipient.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import { KEY, keys, MEMBER_SHARDS, memberPartition, recipientSortKey } from './table-design.ts';

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** The index items of a subscriber as stored (for bulk writes: seeding, `subscribers reindex`). */
export function memberItems(record: SubscriberRecord): Record<string, unknown>[] {
  return listsPlannedUnder(record).map((list) => ({
    ...keys.member(list, record.id),
    email: record.email,
  }));
}

/**
 * The index items a subscriber change adds and removes, to go in the same transaction as the
 * change itself, so that the index is never behind the subscriber (docs/storage.md, "The list
 * index"). A change that leaves the lists and the status alone writes none.
 */
export function membershipWrites(
  table: string,
  before: SubscriberRecord | undefined,
  after: SubscriberRecord | undefined,
): TransactItems {
  const was = listsPlannedUnder(before);
  const is = listsPlannedUnder(after);
  const added = after ? is.filter((list) => !was.includes(list)) : [];
  const removed = before ? was.filter((list) => !is.includes(list)) : [];
  return [
    ...added.map((list) => ({
      Put: {
        TableName: table,
        Item: { ...keys.member(list, after?.id ?? 0), email: after?.email },
      },
    })),
    ...removed.flatMap((list) => memberDeletes(table, list, before?.id ?? 0)),
  ];
}

/**
 * The deletes of a subscriber's entry on a list: where it is written now, and where it was
 * written before the index was spread further (deleting an absent item changes nothing).
 */
function memberDeletes(table: string, list: number, subscriberId: number): TransactItems {
  const now = keys.member(list, subscriberId);
  const before = keys.legacyMember(list, subscriberId);
  return [
    { Delete: { TableName: table, Key: now } },
    ...(before[KEY.partition] === now[KEY.partition]
      ? []
      : [{ Delete: { TableName: table, Key: before } }]),
  ];
}

/**
 * The index items of a subscriber moving to another address (same id): every entry they keep
 * is written again with the new address, since planning mails the address the entry holds.
 */
export function movedMembershipWrites(
  table: string,
  from: SubscriberRecord,
  to: SubscriberRecord,
): TransactItems {
  const kept = listsPlannedUnder(to);
  return [
    ...memberItems(to).map((item) => ({ Put: { TableName: table, Item: item } })),
    // An entry of the old layout would keep the old address beside the new one.
    ...kept.flatMap((list) => memberDeletes(table, list, from.id).slice(1)),
    ...listsPlannedUnder(from)
      .filter((list) => !kept.includes(list))
      .flatMap((list) => memberDeletes(table, list, from.id)),
  ];
}

/**
 * The Query of one shard of a list's index: members with ids `from` to `to`, oldest first,
 * read consistently (a confirmation a moment before a send starts is planned).
 */
export function memberRangeQuery(
  table: string,
  list: number,
  shard: number,
  from: number,
  to: number,
): QueryCommandInput {
  return {
    TableName: table,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort, '#email': 'email' },
    ExpressionAttributeValues: {
      ':pk': memberPartition(list, shard),
      ':from': recipientSortKey(from),
      ':to': recipientSortKey(to),
    },
    ProjectionExpression: '#sk, #email',
    ConsistentRead: true,
  };
}

/** Every shard of every one of these lists: what a page of planning reads. */
export function memberPartitions(lists: readonly number[]): { list: number; shard: number }[] {
  return [...new Set(lists)].flatMap((list) =>
    Array.from({ length: MEMBER_SHARDS }, (_, shard) => ({ list, shard })),
  );
}
