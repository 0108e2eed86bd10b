import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DynamoRequests } from './dynamo-requests.ts';
import { INDEX } from './table-design.ts';

type Item = Record<string, unknown>;

/**
 * Partition key values the subscribers are spread over in the `recent` and `by_email`
 * indexes, by id. One value takes at most 1,000 index writes a second; sign-ups, confirmations,
 * imports and a mass unsubscribe each write a subscriber's index entries, and at the rates of
 * docs/storage.md ("Hot keys") sixteen values keep each under 40% of that.
 */
export const SUBSCRIBER_INDEX_SHARDS = 16;

/**
 * The one partition key value of subscribers written before the spread. Any later write of
 * such a subscriber moves it to its spread value, `subscribers reindex` moves the rest, and
 * reads look here too, so a table is never half-listed while it moves.
 */
export const LEGACY_SUBSCRIBER_PARTITION = 'subscriber';

/** The index partition key value of the subscriber with this id. */
export function subscriberIndexPartition(id: number): string {
  return `subscriber#${id % SUBSCRIBER_INDEX_SHARDS}`;
}

/** Every partition key value subscribers are listed under, the legacy one last. */
export const SUBSCRIBER_INDEX_PARTITIONS: readonly string[] = [
  ...Array.from({ length: SUBSCRIBER_INDEX_SHARDS }, (_, shard) => `subscriber#${shard}`),
  LEGACY_SUBSCRIBER_PARTITION,
];

/** A filter on the index's attributes, as a FilterExpression with its names and values. */
export interface IndexFilter {
  readonly expression: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
}

/** What a read of subscribers across the index's partitions asks for. */
export interface SubscriberIndexQuery {
  /** `asc`: by id, oldest first; `desc`: newest first. */
  readonly order: 'asc' | 'desc';
  /** Only ids from `from` to `to` (both included, either may be left open). */
  readonly from?: number;
  readonly to?: number;
  readonly filter?: IndexFilter;
  /** Attributes to read (`id` is always read); all the index holds when left out. */
  readonly fields?: readonly string[];
  /**
   * Entries each Query reads of one partition: about the caller's share of what it needs from
   * that partition, so that a page reads little past its end (every partition answers at least
   * one Query, and a Query's Limit counts entries before the filter).
   */
  readonly perQuery: number;
}

interface Cursor {
  readonly partition: string;
  buffer: Item[];
  next?: Item;
  done: boolean;
}

/**
 * Reads subscribers from the `recent` index's partitions in one id order: a k-way merge of
 * one Query page per partition at a time, each asked for only when its partition's next entry
 * is needed. The merged order is exact: an entry is given only once every partition that may
 * still hold a better one has shown its next entry.
 */
export async function* subscribersInIdOrder(
  requests: DynamoRequests,
  table: string,
  query: SubscriberIndexQuery,
): AsyncGenerator<Item> {
  const cursors: Cursor[] = SUBSCRIBER_INDEX_PARTITIONS.map((partition) => ({
    partition,
    buffer: [],
    done: false,
  }));
  const input = (cursor: Cursor): QueryCommandInput => rangeInput(table, cursor.partition, query);
  const fill = async (cursor: Cursor): Promise<void> => {
    // A page the filter emptied says nothing of the partition's next entry: read on.
    while (cursor.buffer.length === 0 && !cursor.done) {
      const output = await requests.send<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
        `query:${INDEX.recent.name}`,
        new QueryCommand({
          ...input(cursor),
          ...(cursor.next ? { ExclusiveStartKey: cursor.next } : {}),
        }),
      );
      cursor.buffer = output.Items ?? [];
      cursor.next = output.LastEvaluatedKey;
      cursor.done = cursor.next === undefined;
    }
  };
  const better =
    query.order === 'asc' ? (a: number, b: number) => a < b : (a: number, b: number) => a > b;
  for (;;) {
    await Promise.all(cursors.filter((cursor) => cursor.buffer.length === 0).map(fill));
    let best: Cursor | undefined;
    for (const cursor of cursors) {
      const head = cursor.buffer[0];
      if (head === undefined) continue;
      const bestHead = best?.buffer[0];
      if (bestHead === undefined || better(Number(head.id), Number(bestHead.id))) best = cursor;
    }
    if (!best) return;
    yield best.buffer.shift() as Item;
  }
}

/** The Query of one partition for a merged read. */
function rangeInput(
  table: string,
  partition: string,
  query: SubscriberIndexQuery,
): QueryCommandInput {
  const names: Record<string, string> = {
    '#kind': INDEX.recent.partition,
    ...query.filter?.names,
  };
  const values: Record<string, unknown> = { ':kind': partition, ...query.filter?.values };
  const bounds: string[] = [];
  if (query.from !== undefined) values[':from'] = query.from;
  if (query.to !== undefined) values[':to'] = query.to;
  if (query.from !== undefined && query.to !== undefined) bounds.push('#id BETWEEN :from AND :to');
  else if (query.from !== undefined) bounds.push('#id >= :from');
  else if (query.to !== undefined) bounds.push('#id <= :to');
  const projection = query.fields
    ? [
        '#id',
        ...query.fields.map((field, index) => {
          names[`#f${index}`] = field;
          return `#f${index}`;
        }),
      ].join(', ')
    : undefined;
  // DynamoDB refuses a name the request does not use.
  if (bounds.length > 0 || projection) names['#id'] = INDEX.recent.sort;
  return {
    TableName: table,
    IndexName: INDEX.recent.name,
    KeyConditionExpression: ['#kind = :kind', ...bounds].join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: query.order === 'asc',
    Limit: Math.max(1, Math.ceil(query.perQuery)),
    ...(query.filter ? { FilterExpression: query.filter.expression } : {}),
    ...(projection ? { ProjectionExpression: projection } : {}),
  };
}

/** The `limit` newest subscribers' index entries, newest first. */
export async function newestSubscribers(
  requests: DynamoRequests,
  table: string,
  limit: number,
): Promise<Item[]> {
  const items: Item[] = [];
  if (limit <= 0) return items;
  for await (const item of subscribersInIdOrder(requests, table, {
    order: 'desc',
    // The newest ids are spread evenly over the shards; two more than an even share each
    // lets the merge end after one round almost always.
    perQuery: Math.ceil(limit / SUBSCRIBER_INDEX_SHARDS) + 2,
  })) {
    items.push(item);
    if (items.length >= limit) break;
  }
  return items;
}

/**
 * The address of the subscriber with this id: one Query of the id's partition (one entry, its
 * address only), and of the legacy partition when the subscriber has not moved yet.
 */
export async function emailById(
  requests: DynamoRequests,
  table: string,
  id: number,
): Promise<string | undefined> {
  for (const partition of [subscriberIndexPartition(id), LEGACY_SUBSCRIBER_PARTITION]) {
    const output = await requests.send<{ Items?: Item[] }>(
      `query:${INDEX.recent.name}`,
      new QueryCommand({
        TableName: table,
        IndexName: INDEX.recent.name,
        KeyConditionExpression: '#kind = :kind AND #id = :id',
        ExpressionAttributeNames: {
          '#kind': INDEX.recent.partition,
          '#id': INDEX.recent.sort,
          '#email': 'email',
        },
        ExpressionAttributeValues: { ':kind': partition, ':id': id },
        ProjectionExpression: '#email',
      }),
    );
    const email = output.Items?.[0]?.email;
    if (typeof email === 'string') return email;
  }
  return undefined;
}

/**
 * Every subscriber whose address starts with `prefix` (the `by_email` index, keyed by the same
 * partition values): one Query of each partition, reading its matches only, in no order.
 */
export async function subscribersByEmailPrefix(
  requests: DynamoRequests,
  table: string,
  prefix: string,
  filter?: IndexFilter,
): Promise<{ id: number; email: string }[]> {
  const found: { id: number; email: string }[] = [];
  await Promise.all(
    SUBSCRIBER_INDEX_PARTITIONS.map(async (partition) => {
      for await (const items of requests.queryPages(`query:${INDEX.byEmail.name}`, {
        TableName: table,
        IndexName: INDEX.byEmail.name,
        KeyConditionExpression: '#kind = :kind AND begins_with(#email, :prefix)',
        ExpressionAttributeNames: {
          '#kind': INDEX.byEmail.partition,
          '#email': 'email',
          '#id': 'id',
          ...filter?.names,
        },
        ExpressionAttributeValues: { ':kind': partition, ':prefix': prefix, ...filter?.values },
        ProjectionExpression: '#email, #id',
        ...(filter ? { FilterExpression: filter.expression } : {}),
      }))
        for (const item of items) found.push({ id: Number(item.id), email: String(item.email) });
    }),
  );
  return found;
}
