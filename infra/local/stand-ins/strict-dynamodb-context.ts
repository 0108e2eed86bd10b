/**
 * What the strict DynamoDB front's handlers share (strict-dynamodb-requests.ts): the front's
 * state, how an item and its partitions are named, how a request asks DynamoDB Local for its
 * units and how the answer goes back as the caller asked for it.
 */
import type { Answer, CancellationReason, Throttled } from './dynamodb-answers.ts';
import type { ItemHolds } from './dynamodb-holds.ts';
import {
  type AttributeMap,
  type ItemBook,
  type ItemState,
  itemId,
  keyOf,
  stateOf,
  type TableSchema,
  valueText,
} from './dynamodb-items.ts';
import type { Direction, Partition, PartitionThroughput } from './dynamodb-partitions.ts';
import type { StrictDynamoDbSettings, StrictDynamoDbStats, Upstream } from './strict-dynamodb.ts';

/** What the handlers work with. */
export interface Strictness {
  readonly settings: StrictDynamoDbSettings;
  readonly stats: StrictDynamoDbStats;
  readonly holds: ItemHolds;
  readonly throughput: PartitionThroughput;
  readonly now: () => number;
  readonly wait: (ms: number) => Promise<void>;
  schema(table: string): Promise<TableSchema | undefined>;
  book(table: string): ItemBook;
  /** A call of the front's own to DynamoDB Local. */
  ownCall(operation: string, input: unknown): Promise<Upstream>;
}

export type Forward = (body?: Buffer | string) => Promise<Upstream>;
export type Input = Record<string, unknown>;

export interface Capacity {
  TableName?: string;
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

/** An item named by its table and key, as the holds know it. */
export const itemRef = (schema: TableSchema, key: AttributeMap): string =>
  `${schema.name}\u0001${itemId(schema, key)}`;

export const tablePartition = (schema: TableSchema, key: AttributeMap): Partition => ({
  table: schema.name,
  index: undefined,
  value: valueText(key[schema.hash]),
});

export function throttleOf(
  schema: TableSchema,
  partition: Partition,
  direction: Direction,
): Throttled {
  const index = schema.indexes.find((each) => each.name === partition.index);
  return {
    partition,
    direction,
    resource: index?.arn ?? schema.arn,
    provisioned: schema.provisioned,
  };
}

/**
 * What the front knows of an item; one that it has not seen written is read (its index keys
 * only, consistently) once, and remembered from then on.
 */
export async function stateBefore(
  strict: Strictness,
  schema: TableSchema,
  key: AttributeMap,
): Promise<ItemState | null> {
  const book = strict.book(schema.name);
  const id = itemId(schema, key);
  const known = book.get(id);
  if (known !== undefined) return known;
  if (schema.indexKeys.size === 0) return { indexKeys: {}, bytes: undefined };
  strict.stats.keyReads += 1;
  const names = [...schema.indexKeys];
  const answer = await strict.ownCall('GetItem', {
    TableName: schema.name,
    Key: key,
    ConsistentRead: true,
    ProjectionExpression: names.map((_, at) => `#k${at}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(names.map((name, at) => [`#k${at}`, name])),
  });
  if (answer.status !== 200) return null;
  const item = (JSON.parse(answer.body.toString()) as { Item?: AttributeMap }).Item;
  const state = item ? { ...stateOf(schema, item), bytes: undefined } : null;
  book.set(id, state);
  return state;
}

/**
 * Asks DynamoDB Local for per-index units (and whatever else `extra` sets), in one
 * serialisation; the caller's own ask decides what it gets back.
 */
export function withCapacity(
  input: Input,
  extra: Input = {},
): { body: string; asked: string | undefined } {
  const asked = input.ReturnConsumedCapacity as string | undefined;
  return { body: JSON.stringify({ ...input, ...extra, ReturnConsumedCapacity: 'INDEXES' }), asked };
}

/** The capacity as the caller asked for it (none, TOTAL or INDEXES). */
export function capacityAsAsked(
  capacity: Capacity | Capacity[] | undefined,
  asked: string | undefined,
) {
  if (capacity === undefined || asked === undefined || asked === 'NONE') return undefined;
  if (asked === 'INDEXES') return capacity;
  const total = ({ TableName, CapacityUnits }: Capacity) => ({ TableName, CapacityUnits });
  return Array.isArray(capacity) ? capacity.map(total) : total(capacity);
}

/** DynamoDB Local's answer, parsed, to change before it goes back. */
export function parsed(answer: Upstream): Record<string, unknown> {
  return JSON.parse(answer.body.toString()) as Record<string, unknown>;
}

export const ok = (body: Record<string, unknown>): Answer => ({ status: 200, body });

export interface Target {
  readonly schema: TableSchema;
  readonly key: AttributeMap;
  readonly ref: string;
}

/** The tables and keys a transaction's items name; undefined when one cannot be read. */
export async function targetsOf(
  strict: Strictness,
  items: readonly Record<string, Input>[],
): Promise<Target[] | undefined> {
  const targets: Target[] = [];
  for (const item of items) {
    const [kind, action] = Object.entries(item)[0] ?? [];
    if (!action) return undefined;
    const schema = await strict.schema(String(action.TableName));
    if (!schema) return undefined;
    const key =
      kind === 'Put'
        ? keyOf(schema, (action.Item ?? {}) as AttributeMap)
        : (action.Key as AttributeMap);
    if (!key?.[schema.hash]) return undefined;
    targets.push({ schema, key, ref: itemRef(schema, key) });
  }
  return targets;
}

export const NONE: CancellationReason = { Code: 'None' };
