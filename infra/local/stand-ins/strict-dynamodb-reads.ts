/**
 * The strict DynamoDB front's reads: GetItem and Query on the partition their key names,
 * BatchGetItem key by key, TransactGetItems cancelled by a write in progress on its items.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  type Answer,
  CONFLICT_REASON,
  type Throttled,
  throttled,
  throttledReason,
  transactionCanceled,
} from './dynamodb-answers.ts';
import { type AttributeMap, valueText } from './dynamodb-items.ts';
import type { Partition } from './dynamodb-partitions.ts';
import type { Upstream } from './strict-dynamodb.ts';
import {
  type Capacity,
  capacityAsAsked,
  type Forward,
  type Input,
  NONE,
  ok,
  parsed,
  type Strictness,
  tablePartition,
  targetsOf,
  throttleOf,
  withCapacity,
} from './strict-dynamodb-context.ts';

export async function singleRead(
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

export async function batchGet(
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

export async function transactGet(
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
