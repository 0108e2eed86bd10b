/**
 * The strict DynamoDB front's handling of each data-plane operation (strict-dynamodb.ts says
 * what it emulates): which items and partitions a request touches, whether a running
 * transaction or a partition's throughput refuses it, what it consumed, and the answer.
 *
 * Units: a single-item request's are DynamoDB Local's own (ReturnConsumedCapacity INDEXES,
 * asked for and taken out of the answer when the caller did not ask), per index, put on the
 * index partitions the item left and entered. A transaction's and a batch's are worked out by
 * DynamoDB's rules from the items' sizes, since DynamoDB Local's totals for those merge items
 * of equal size (three new items in one transaction come back as 2 units, not 6).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  type Answer,
  type CancellationReason,
  CONFLICT_REASON,
  type Throttled,
  throttled,
  throttledReason,
  transactionCanceled,
  transactionConflict,
} from './dynamodb-answers.ts';
import type { ItemHolds } from './dynamodb-holds.ts';
import {
  type AttributeMap,
  afterUpdate,
  entrySize,
  type IndexSchema,
  type ItemBook,
  type ItemState,
  indexPartitions,
  itemId,
  keyOf,
  stateOf,
  type TableSchema,
  type UpdateEffect,
  type UpdateRequest,
  updateEffect,
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

type Forward = (body?: Buffer | string) => Promise<Upstream>;
type Input = Record<string, unknown>;

interface Capacity {
  TableName?: string;
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

/** Handles one DynamoDB_20120810 operation; what it does not know passes through. */
export async function handleOperation(
  strict: Strictness,
  operation: string,
  body: Buffer,
  forward: Forward,
): Promise<Upstream | Answer> {
  let input: Input;
  try {
    input = JSON.parse(body.toString()) as Input;
  } catch {
    return forward();
  }
  switch (operation) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return singleWrite(strict, operation, input, forward);
    case 'GetItem':
    case 'Query':
      return singleRead(strict, operation, input, forward);
    case 'BatchGetItem':
      return batchGet(strict, input, forward);
    case 'TransactGetItems':
      return transactGet(strict, input, forward);
    case 'BatchWriteItem':
      return batchWrite(strict, input, forward);
    case 'TransactWriteItems':
      return transactWrite(strict, input, forward);
    default:
      // Scan reads partitions one after another; PartiQL and the control plane pass as they are.
      return forward();
  }
}

/** An item named by its table and key, as the holds know it. */
const itemRef = (schema: TableSchema, key: AttributeMap): string =>
  `${schema.name}\u0001${itemId(schema, key)}`;

const tablePartition = (schema: TableSchema, key: AttributeMap): Partition => ({
  table: schema.name,
  index: undefined,
  value: valueText(key[schema.hash]),
});

function throttleOf(schema: TableSchema, partition: Partition, direction: Direction): Throttled {
  const index = schema.indexes.find((each) => each.name === partition.index);
  return {
    partition,
    direction,
    resource: index?.arn ?? schema.arn,
    provisioned: schema.provisioned,
  };
}

/** An index entry a write creates, changes or removes: the partitions it leaves and enters. */
interface IndexWrite {
  readonly index: IndexSchema;
  readonly from: string | undefined;
  readonly to: string | undefined;
}

/**
 * The index entries a write rewrites. A put or delete rewrites every entry the item had or
 * gets; an update only those whose keys it moves or whose copied attributes it changes (an
 * update that leaves an index's entry as it was does not write that index).
 */
function indexWrites(
  schema: TableSchema,
  kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck',
  before: ItemState | null,
  after: ItemState | null | undefined,
  effect: UpdateEffect | undefined,
): IndexWrite[] {
  if (kind === 'ConditionCheck') return [];
  const old = indexPartitions(schema, before);
  const now = indexPartitions(schema, after === undefined ? before : after);
  const writes: IndexWrite[] = [];
  for (const index of schema.indexes) {
    const from = old.get(index.name);
    const to = now.get(index.name);
    if (from === undefined && to === undefined) continue;
    const projected = index.projected;
    const rewritten =
      kind !== 'Update' ||
      from !== to ||
      [...(effect?.touched ?? [])].some(
        (name) => projected === undefined || projected.has(name) || schema.indexKeys.has(name),
      );
    if (rewritten) writes.push({ index, from, to });
  }
  return writes;
}

/** The partitions a write touches: its table partition and the index partitions it writes. */
function writePartitions(
  schema: TableSchema,
  key: AttributeMap,
  writes: readonly IndexWrite[],
): Partition[] {
  const partitions = [tablePartition(schema, key)];
  for (const { index, from, to } of writes) {
    for (const value of new Set([from, to])) {
      if (value !== undefined) partitions.push({ table: schema.name, index: index.name, value });
    }
  }
  return partitions;
}

/**
 * What the front knows of an item; one that it has not seen written is read (its index keys
 * only, consistently) once, and remembered from then on.
 */
async function stateBefore(
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

/** Asks DynamoDB Local for per-index units; the caller's own ask decides what it gets back. */
function withCapacity(input: Input): { body: string; asked: string | undefined } {
  const asked = input.ReturnConsumedCapacity as string | undefined;
  return { body: JSON.stringify({ ...input, ReturnConsumedCapacity: 'INDEXES' }), asked };
}

/** The capacity as the caller asked for it (none, TOTAL or INDEXES). */
function capacityAsAsked(capacity: Capacity | Capacity[] | undefined, asked: string | undefined) {
  if (capacity === undefined || asked === undefined || asked === 'NONE') return undefined;
  if (asked === 'INDEXES') return capacity;
  const total = ({ TableName, CapacityUnits }: Capacity) => ({ TableName, CapacityUnits });
  return Array.isArray(capacity) ? capacity.map(total) : total(capacity);
}

/** DynamoDB Local's answer, parsed, to change before it goes back. */
function parsed(answer: Upstream): Record<string, unknown> {
  return JSON.parse(answer.body.toString()) as Record<string, unknown>;
}

const ok = (body: Record<string, unknown>): Answer => ({ status: 200, body });

async function singleWrite(
  strict: Strictness,
  operation: 'PutItem' | 'UpdateItem' | 'DeleteItem',
  input: Input,
  forward: Forward,
): Promise<Upstream | Answer> {
  const schema = await strict.schema(String(input.TableName));
  if (!schema) return forward();
  const key =
    operation === 'PutItem'
      ? keyOf(schema, (input.Item ?? {}) as AttributeMap)
      : ((input.Key ?? {}) as AttributeMap);
  if (!key[schema.hash]) return forward();
  const ref = itemRef(schema, key);
  if (strict.holds.held(ref)) {
    strict.stats.conflicts += 1;
    return transactionConflict();
  }
  const before = await stateBefore(strict, schema, key);
  const effect = operation === 'UpdateItem' ? updateEffect(schema, input) : undefined;
  const predicted =
    operation === 'PutItem'
      ? stateOf(schema, input.Item as AttributeMap)
      : operation === 'DeleteItem'
        ? null
        : afterUpdate(before, effect as UpdateEffect);
  const kind = operation === 'PutItem' ? 'Put' : operation === 'DeleteItem' ? 'Delete' : 'Update';
  const full = strict.throughput.exhausted(
    'write',
    writePartitions(schema, key, indexWrites(schema, kind, before, predicted, effect)),
  );
  if (full) {
    strict.stats.throttledWrites += 1;
    return throttled(throttleOf(schema, full, 'write'));
  }
  // A transaction may have taken the item while its index keys were being read.
  if (strict.holds.held(ref)) {
    strict.stats.conflicts += 1;
    return transactionConflict();
  }
  const { body, asked } = withCapacity(input);
  const askedValues = input.ReturnValues as string | undefined;
  // UPDATED_NEW says which index keys an update changed, and to what.
  const injectValues =
    operation === 'UpdateItem' && (askedValues === undefined || askedValues === 'NONE');
  const sent = injectValues
    ? JSON.stringify({ ...JSON.parse(body), ReturnValues: 'UPDATED_NEW' })
    : body;
  const done = strict.holds.write([ref]);
  let answer: Upstream;
  try {
    answer = await forward(sent);
  } finally {
    done();
  }
  if (answer.status !== 200) {
    // A failed condition still costs the write.
    if (answer.status === 400) strict.throughput.spend('write', tablePartition(schema, key), 1);
    return answer;
  }
  const output = parsed(answer);
  const attributes = output.Attributes as AttributeMap | undefined;
  const after =
    operation !== 'UpdateItem'
      ? predicted
      : askedValues === 'ALL_NEW' && attributes
        ? stateOf(schema, attributes)
        : askedValues === undefined || askedValues === 'NONE' || askedValues === 'UPDATED_NEW'
          ? afterUpdate(before, effect as UpdateEffect, attributes ?? {})
          : afterUpdate(before, effect as UpdateEffect);
  strict.book(schema.name).set(itemId(schema, key), after);
  chargeSingle(strict, schema, key, output.ConsumedCapacity as Capacity | undefined, before, after);
  const capacity = capacityAsAsked(output.ConsumedCapacity as Capacity, asked);
  if (capacity === undefined) delete output.ConsumedCapacity;
  else output.ConsumedCapacity = capacity;
  if (injectValues) delete output.Attributes;
  return ok(output);
}

/** Spends a single-item write's units, as DynamoDB Local counted them, on its partitions. */
function chargeSingle(
  strict: Strictness,
  schema: TableSchema,
  key: AttributeMap,
  capacity: Capacity | undefined,
  before: ItemState | null,
  after: ItemState | null | undefined,
): void {
  if (!capacity) return;
  strict.throughput.spend('write', tablePartition(schema, key), capacity.Table?.CapacityUnits ?? 0);
  const old = indexPartitions(schema, before);
  const now = indexPartitions(schema, after === undefined ? before : after);
  for (const [index, { CapacityUnits = 0 }] of Object.entries(
    capacity.GlobalSecondaryIndexes ?? {},
  )) {
    const values = [...new Set([old.get(index), now.get(index)])].filter(
      (value): value is string => value !== undefined,
    );
    // An entry that moved is a delete in one partition and a put in the other.
    for (const value of values) {
      strict.throughput.spend(
        'write',
        { table: schema.name, index, value },
        CapacityUnits / values.length,
      );
    }
  }
}

async function singleRead(
  strict: Strictness,
  operation: 'GetItem' | 'Query',
  input: Input,
  forward: Forward,
): Promise<Upstream | Answer> {
  const schema = await strict.schema(String(input.TableName));
  if (!schema) return forward();
  const index = operation === 'Query' ? (input.IndexName as string | undefined) : undefined;
  const hash =
    index === undefined ? schema.hash : schema.indexes.find((each) => each.name === index)?.hash;
  const value =
    operation === 'GetItem'
      ? (input.Key as AttributeMap | undefined)?.[schema.hash]
      : hash === undefined
        ? undefined
        : queriedValue(input, hash);
  if (value === undefined) return forward();
  const partition: Partition = { table: schema.name, index, value: valueText(value) };
  if (strict.throughput.exhausted('read', [partition])) {
    strict.stats.throttledReads += 1;
    return throttled(throttleOf(schema, partition, 'read'));
  }
  const { body, asked } = withCapacity(input);
  const answer = await forward(body);
  if (answer.status !== 200) return answer;
  const output = parsed(answer);
  const capacity = output.ConsumedCapacity as Capacity | undefined;
  const units =
    index === undefined
      ? capacity?.Table?.CapacityUnits
      : capacity?.GlobalSecondaryIndexes?.[index]?.CapacityUnits;
  strict.throughput.spend('read', partition, units ?? capacity?.CapacityUnits ?? 0);
  const shown = capacityAsAsked(capacity, asked);
  if (shown === undefined) delete output.ConsumedCapacity;
  else output.ConsumedCapacity = shown;
  return ok(output);
}

/** The partition key value a Query's key condition names (`#pk = :pk` or `:pk = #pk`). */
function queriedValue(input: Input, hash: string): AttributeValue | undefined {
  const legacy = (
    input.KeyConditions as Record<string, { AttributeValueList?: AttributeValue[] }>
  )?.[hash];
  if (legacy) return legacy.AttributeValueList?.[0];
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as AttributeMap;
  const expression = String(input.KeyConditionExpression ?? '');
  const resolve = (token: string) => (token.startsWith('#') ? names[token] : token);
  for (const match of expression.matchAll(/([#:]?[\w-]+)\s*=\s*([#:]?[\w-]+)/g)) {
    const [, left = '', right = ''] = match;
    if (resolve(left) === hash && right.startsWith(':')) return values[right];
    if (resolve(right) === hash && left.startsWith(':')) return values[left];
  }
  return undefined;
}

interface KeysAndAttributes {
  Keys: AttributeMap[];
  [option: string]: unknown;
}

/** A table's entry of a BatchGetItem request, with the same options and keys of its own. */
function listOf(
  requests: Record<string, KeysAndAttributes>,
  table: string,
  like: KeysAndAttributes,
): KeysAndAttributes {
  let entry = requests[table];
  if (!entry) {
    entry = { ...like, Keys: [] };
    requests[table] = entry;
  }
  return entry;
}

async function batchGet(
  strict: Strictness,
  input: Input,
  forward: Forward,
): Promise<Upstream | Answer> {
  const requested = (input.RequestItems ?? {}) as Record<string, KeysAndAttributes>;
  const kept: Record<string, KeysAndAttributes> = {};
  const refused: Record<string, KeysAndAttributes> = {};
  const readBy = new Map<string, Partition[]>();
  let first: Throttled | undefined;
  for (const [table, request] of Object.entries(requested)) {
    const schema = await strict.schema(table);
    if (!schema || !Array.isArray(request.Keys)) return forward();
    const partitions: Partition[] = [];
    for (const key of request.Keys) {
      const partition = tablePartition(schema, key);
      if (strict.throughput.exhausted('read', [partition])) {
        first ??= throttleOf(schema, partition, 'read');
        listOf(refused, table, request).Keys.push(key);
        continue;
      }
      listOf(kept, table, request).Keys.push(key);
      partitions.push(partition);
    }
    readBy.set(table, partitions);
  }
  const refusedCount = Object.values(refused).reduce((sum, each) => sum + each.Keys.length, 0);
  strict.stats.throttledReads += refusedCount;
  if (first && Object.keys(kept).length === 0) return throttled(first);
  const { body, asked } = withCapacity({ ...input, RequestItems: kept });
  const answer = await forward(body);
  if (answer.status !== 200) return answer;
  const output = parsed(answer);
  const capacities = (output.ConsumedCapacity ?? []) as Capacity[];
  // DynamoDB Local counts a table's reads together; each key gets its share.
  for (const capacity of capacities) {
    const partitions = readBy.get(String(capacity.TableName)) ?? [];
    for (const partition of partitions) {
      strict.throughput.spend(
        'read',
        partition,
        (capacity.Table?.CapacityUnits ?? capacity.CapacityUnits ?? 0) / partitions.length,
      );
    }
  }
  const unprocessed = (output.UnprocessedKeys ?? {}) as Record<string, KeysAndAttributes>;
  for (const [table, request] of Object.entries(refused)) {
    const merged = unprocessed[table];
    unprocessed[table] = merged ? { ...merged, Keys: [...merged.Keys, ...request.Keys] } : request;
  }
  output.UnprocessedKeys = unprocessed;
  const shown = capacityAsAsked(capacities, asked);
  if (shown === undefined) delete output.ConsumedCapacity;
  else output.ConsumedCapacity = shown;
  return ok(output);
}

interface Target {
  readonly schema: TableSchema;
  readonly key: AttributeMap;
  readonly ref: string;
}

/** The tables and keys a transaction's items name; undefined when one cannot be read. */
async function targetsOf(
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

const NONE: CancellationReason = { Code: 'None' };

async function transactGet(
  strict: Strictness,
  input: Input,
  forward: Forward,
): Promise<Upstream | Answer> {
  const items = (input.TransactItems ?? []) as Record<string, Input>[];
  const targets = await targetsOf(strict, items);
  if (!targets) return forward();
  if (targets.some((target) => strict.holds.busy(target.ref))) {
    strict.stats.cancelledForConflict += 1;
    return transactionCanceled(
      targets.map((target) => (strict.holds.busy(target.ref) ? CONFLICT_REASON : NONE)),
    );
  }
  const partitions = targets.map((target) => tablePartition(target.schema, target.key));
  const full = partitions.map((partition) => strict.throughput.exhausted('read', [partition]));
  if (full.some(Boolean)) {
    strict.stats.throttledReads += 1;
    return transactionCanceled(
      targets.map((target, at) => {
        const partition = full[at];
        return partition ? throttledReason(throttleOf(target.schema, partition, 'read')) : NONE;
      }),
    );
  }
  const reading = strict.holds.read(targets.map((target) => target.ref));
  const { body, asked } = withCapacity(input);
  let answer: Upstream;
  try {
    answer = await forward(body);
  } finally {
    reading.done();
  }
  if (reading.conflicted()) {
    strict.stats.cancelledForConflict += 1;
    return transactionCanceled(targets.map(() => CONFLICT_REASON));
  }
  if (answer.status !== 200) return answer;
  const output = parsed(answer);
  const capacities = (output.ConsumedCapacity ?? []) as Capacity[];
  for (const capacity of capacities) {
    const mine = partitions.filter((partition) => partition.table === capacity.TableName);
    for (const partition of mine) {
      strict.throughput.spend(
        'read',
        partition,
        (capacity.Table?.CapacityUnits ?? capacity.CapacityUnits ?? 0) / mine.length,
      );
    }
  }
  const shown = capacityAsAsked(capacities, asked);
  if (shown === undefined) delete output.ConsumedCapacity;
  else output.ConsumedCapacity = shown;
  return ok(output);
}

const units = (bytes: number | undefined, per: number) =>
  Math.max(1, Math.ceil((bytes ?? 0) / per));

/** A write of a batch or transaction: what it is and the item before and after. */
interface PlannedWrite {
  readonly target: Target;
  readonly kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  readonly item: AttributeMap | undefined;
  readonly effect: UpdateEffect | undefined;
  readonly before: ItemState | null;
  readonly after: ItemState | null | undefined;
}

/**
 * The write units DynamoDB charges an item-level write, by partition (KB units of the larger
 * of the item before and after; an index entry's units where the write creates, changes or
 * removes it), times `factor` (2 in a transaction).
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
 */
function writeCharges(write: PlannedWrite, factor: number): [Partition, number][] {
  const { schema, key } = write.target;
  const bytes = Math.max(write.before?.bytes ?? 0, write.after?.bytes ?? 0);
  const charges: [Partition, number][] = [
    [tablePartition(schema, key), factor * units(bytes, 1024)],
  ];
  for (const { index, from, to } of indexWrites(
    schema,
    write.kind,
    write.before,
    write.after,
    write.effect,
  )) {
    const entry = write.item
      ? units(entrySize(schema, index, write.item), 1024)
      : units(index.projected === undefined ? bytes : 0, 1024);
    if (to !== undefined) {
      charges.push([{ table: schema.name, index: index.name, value: to }, factor * entry]);
    }
    if (from !== undefined && from !== to) {
      charges.push([{ table: schema.name, index: index.name, value: from }, factor]);
    }
  }
  return charges;
}

/** Plans an item-level write: the item before (read if unknown) and after. */
async function plan(
  strict: Strictness,
  target: Target,
  kind: PlannedWrite['kind'],
  action: Input,
): Promise<PlannedWrite> {
  const before = await stateBefore(strict, target.schema, target.key);
  const item = kind === 'Put' ? (action.Item as AttributeMap) : undefined;
  const effect =
    kind === 'Update' ? updateEffect(target.schema, action as UpdateRequest) : undefined;
  const after =
    kind === 'Put'
      ? stateOf(target.schema, item as AttributeMap)
      : kind === 'Delete'
        ? null
        : kind === 'ConditionCheck'
          ? before
          : afterUpdate(before, effect as UpdateEffect);
  return { target, kind, item, effect, before, after };
}

/** The first partition of a planned write that is over its limit. */
function exhaustedBy(strict: Strictness, write: PlannedWrite): Partition | undefined {
  return strict.throughput.exhausted(
    'write',
    writeCharges(write, 1).map(([partition]) => partition),
  );
}

function record(strict: Strictness, write: PlannedWrite): void {
  if (write.kind === 'ConditionCheck') return;
  strict
    .book(write.target.schema.name)
    .set(itemId(write.target.schema, write.target.key), write.after);
}

interface WriteRequest {
  PutRequest?: { Item: AttributeMap };
  DeleteRequest?: { Key: AttributeMap };
}

async function batchWrite(
  strict: Strictness,
  input: Input,
  forward: Forward,
): Promise<Upstream | Answer> {
  const requested = (input.RequestItems ?? {}) as Record<string, WriteRequest[]>;
  const kept: Record<string, WriteRequest[]> = {};
  const left: Record<string, WriteRequest[]> = {};
  const planned: PlannedWrite[] = [];
  let first: Throttled | undefined;
  for (const [table, requests] of Object.entries(requested)) {
    const schema = await strict.schema(table);
    if (!schema || !Array.isArray(requests)) return forward();
    for (const request of requests) {
      const kind = request.PutRequest ? 'Put' : 'Delete';
      const key = request.PutRequest
        ? keyOf(schema, request.PutRequest.Item ?? {})
        : (request.DeleteRequest?.Key ?? {});
      if (!key[schema.hash]) return forward();
      const target = { schema, key, ref: itemRef(schema, key) };
      const write = await plan(strict, target, kind, { Item: request.PutRequest?.Item });
      const full = exhaustedBy(strict, write);
      if (full) first ??= throttleOf(schema, full, 'write');
      // An item a transaction holds, or over its partition's limit, is left for a retry.
      if (full || strict.holds.held(target.ref)) {
        left[table] = [...(left[table] ?? []), request];
        continue;
      }
      kept[table] = [...(kept[table] ?? []), request];
      planned.push(write);
    }
  }
  const leftCount = Object.values(left).reduce((sum, each) => sum + each.length, 0);
  strict.stats.unprocessed += leftCount;
  if (planned.length === 0) {
    if (first) {
      strict.stats.throttledWrites += 1;
      return throttled(first);
    }
    return ok({ UnprocessedItems: left });
  }
  const done = strict.holds.write(planned.map((write) => write.target.ref));
  let answer: Upstream;
  try {
    answer = await forward(JSON.stringify({ ...input, RequestItems: kept }));
  } finally {
    done();
  }
  if (answer.status !== 200) return answer;
  const output = parsed(answer);
  const unprocessed = (output.UnprocessedItems ?? {}) as Record<string, WriteRequest[]>;
  const notDone = new Set(
    Object.entries(unprocessed).flatMap(([table, requests]) =>
      requests.map((request) => {
        const key = request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {};
        return `${table}\u0001${JSON.stringify(key)}`;
      }),
    ),
  );
  for (const write of planned) {
    const request = write.item ?? write.target.key;
    if (notDone.has(`${write.target.schema.name}\u0001${JSON.stringify(request)}`)) continue;
    record(strict, write);
    for (const [partition, spent] of writeCharges(write, 1)) {
      strict.throughput.spend('write', partition, spent);
    }
  }
  for (const [table, requests] of Object.entries(left)) {
    unprocessed[table] = [...(unprocessed[table] ?? []), ...requests];
  }
  output.UnprocessedItems = unprocessed;
  return ok(output);
}

const KINDS = ['Put', 'Update', 'Delete', 'ConditionCheck'] as const;

async function transactWrite(
  strict: Strictness,
  input: Input,
  forward: Forward,
): Promise<Upstream | Answer> {
  const items = (input.TransactItems ?? []) as Record<string, Input>[];
  const targets = await targetsOf(strict, items);
  // An item named twice is DynamoDB Local's to refuse (a ValidationException, as DynamoDB).
  if (!targets || new Set(targets.map((target) => target.ref)).size !== targets.length) {
    return forward();
  }
  // Checked and taken with no wait in between: two transactions cannot both pass.
  if (targets.some((target) => strict.holds.held(target.ref))) {
    strict.stats.cancelledForConflict += 1;
    return transactionCanceled(
      targets.map((target) => (strict.holds.held(target.ref) ? CONFLICT_REASON : NONE)),
    );
  }
  const started = strict.now();
  const release = strict.holds.hold(targets.map((target) => target.ref));
  try {
    const planned: PlannedWrite[] = [];
    for (const [at, target] of targets.entries()) {
      const item = items[at] ?? {};
      const kind = KINDS.find((each) => item[each] !== undefined) ?? 'ConditionCheck';
      planned.push(await plan(strict, target, kind, item[kind] ?? {}));
    }
    const full = planned.map((write) => exhaustedBy(strict, write));
    if (full.some(Boolean)) {
      strict.stats.throttledWrites += 1;
      return transactionCanceled(
        planned.map((write, at) => {
          const partition = full[at];
          return partition
            ? throttledReason(throttleOf(write.target.schema, partition, 'write'))
            : NONE;
        }),
      );
    }
    const answer = await forward();
    const left = strict.settings.holdMs - (strict.now() - started);
    if (left > 0) await strict.wait(left);
    if (answer.status === 200) {
      for (const write of planned) {
        record(strict, write);
        for (const [partition, spent] of writeCharges(write, 2)) {
          strict.throughput.spend('write', partition, spent);
        }
      }
    }
    return answer;
  } finally {
    release();
  }
}
