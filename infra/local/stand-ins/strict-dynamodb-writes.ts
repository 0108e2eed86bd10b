/**
 * The strict DynamoDB front's writes: a single-item write refused for a held item or a spent
 * partition, a batch that leaves such items unprocessed, a transaction that holds its items,
 * and the units each takes from the partitions it writes (strict-dynamodb-requests.ts says
 * where the units come from).
 */
import {
  type Answer,
  CONFLICT_REASON,
  type Throttled,
  throttled,
  throttledReason,
  transactionCanceled,
  transactionConflict,
} from './dynamodb-answers.ts';
import {
  type AttributeMap,
  afterUpdate,
  entrySize,
  type IndexSchema,
  type ItemState,
  indexPartitions,
  itemId,
  keyOf,
  stateOf,
  type TableSchema,
  type UpdateEffect,
  type UpdateRequest,
  updateEffect,
} from './dynamodb-items.ts';
import type { Partition } from './dynamodb-partitions.ts';
import type { Upstream } from './strict-dynamodb.ts';
import {
  type Capacity,
  capacityAsAsked,
  type Forward,
  type Input,
  itemRef,
  NONE,
  ok,
  parsed,
  type Strictness,
  stateBefore,
  type Target,
  tablePartition,
  targetsOf,
  throttleOf,
  withCapacity,
} from './strict-dynamodb-context.ts';

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

export async function singleWrite(
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
  const askedValues = input.ReturnValues as string | undefined;
  // UPDATED_NEW says what an index key became when the expression alone does not tell.
  const injectValues =
    operation === 'UpdateItem' &&
    effect?.opaque === true &&
    (askedValues === undefined || askedValues === 'NONE');
  const { body, asked } = withCapacity(input, injectValues ? { ReturnValues: 'UPDATED_NEW' } : {});
  const done = strict.holds.write([ref]);
  let answer: Upstream;
  try {
    answer = await forward(body);
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
  // Nothing to take out: DynamoDB Local's answer goes back as it came.
  if (asked === 'INDEXES' && !injectValues) return answer;
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

export async function batchWrite(
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

export async function transactWrite(
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
