/**
 * What the strict DynamoDB front (strict-dynamodb.ts) knows about a table and its items: the
 * key schema and global secondary indexes (learned once per table), the partition an item
 * occupies in the table and in each index, and the item's size as DynamoDB measures it. The
 * front keeps, per item it has seen written, the values of the index key attributes, so that
 * the index partitions a write leaves and enters are known before it runs.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type AttributeMap = Record<string, AttributeValue>;

/** A global secondary index, as DescribeTable describes it. */
export interface IndexSchema {
  readonly name: string;
  readonly arn: string;
  readonly hash: string;
  readonly range: string | undefined;
  /** Attributes an entry copies besides the keys; undefined for `ALL`. */
  readonly projected: ReadonlySet<string> | undefined;
}

/** A table, as DescribeTable describes it. */
export interface TableSchema {
  readonly name: string;
  readonly arn: string;
  readonly hash: string;
  readonly range: string | undefined;
  readonly indexes: readonly IndexSchema[];
  /** Every attribute that is a key of some index. */
  readonly indexKeys: ReadonlySet<string>;
  /** Provisioned mode: throttles answer ProvisionedThroughputExceededException. */
  readonly provisioned: boolean;
}

interface Description {
  TableName?: string;
  TableArn?: string;
  KeySchema?: { AttributeName: string; KeyType: string }[];
  BillingModeSummary?: { BillingMode?: string };
  GlobalSecondaryIndexes?: {
    IndexName: string;
    IndexArn?: string;
    KeySchema: { AttributeName: string; KeyType: string }[];
    Projection?: { ProjectionType?: string; NonKeyAttributes?: string[] };
  }[];
}

/** The schema of a DescribeTable answer's `Table`. */
export function schemaOf(table: Description): TableSchema {
  const keyOf = (keys: Description['KeySchema'], type: string) =>
    keys?.find((key) => key.KeyType === type)?.AttributeName;
  const name = table.TableName ?? '';
  const arn = table.TableArn ?? `arn:aws:dynamodb:local:000000000000:table/${name}`;
  const indexes = (table.GlobalSecondaryIndexes ?? []).map(
    (index): IndexSchema => ({
      name: index.IndexName,
      arn: index.IndexArn ?? `${arn}/index/${index.IndexName}`,
      hash: keyOf(index.KeySchema, 'HASH') ?? '',
      range: keyOf(index.KeySchema, 'RANGE'),
      projected:
        index.Projection?.ProjectionType === 'ALL'
          ? undefined
          : new Set(index.Projection?.NonKeyAttributes ?? []),
    }),
  );
  const indexKeys = new Set<string>();
  for (const index of indexes) {
    indexKeys.add(index.hash);
    if (index.range) indexKeys.add(index.range);
  }
  return {
    name,
    arn,
    hash: keyOf(table.KeySchema, 'HASH') ?? '',
    range: keyOf(table.KeySchema, 'RANGE'),
    indexes,
    indexKeys,
    provisioned: table.BillingModeSummary?.BillingMode === 'PROVISIONED',
  };
}

/** One attribute value as a stable string (a single-key object stringifies the same way). */
export const valueText = (value: AttributeValue | undefined): string => JSON.stringify(value);

/** The identity of an item: its table key values. */
export function itemId(schema: TableSchema, key: AttributeMap): string {
  const hash = valueText(key[schema.hash]);
  return schema.range === undefined ? hash : `${hash}\u0000${valueText(key[schema.range])}`;
}

/** The table key of an item. */
export function keyOf(schema: TableSchema, item: AttributeMap): AttributeMap {
  const key: AttributeMap = {};
  const hash = item[schema.hash];
  if (hash) key[schema.hash] = hash;
  const range = schema.range === undefined ? undefined : item[schema.range];
  if (schema.range !== undefined && range) key[schema.range] = range;
  return key;
}

/** What the front knows of an item: its index key attribute values, and its size if known. */
export interface ItemState {
  readonly indexKeys: AttributeMap;
  readonly bytes: number | undefined;
}

/** The state of a whole item (a Put's item, a read item). */
export function stateOf(schema: TableSchema, item: AttributeMap): ItemState {
  const indexKeys: AttributeMap = {};
  for (const name of schema.indexKeys) {
    const value = item[name];
    if (value) indexKeys[name] = value;
  }
  return { indexKeys, bytes: itemSize(item) };
}

/**
 * The partition an item occupies in each index it is in (an index holds an item only when the
 * item has all of that index's keys), by index name: the partition key value as text.
 */
export function indexPartitions(schema: TableSchema, state: ItemState | null): Map<string, string> {
  const partitions = new Map<string, string>();
  if (!state) return partitions;
  for (const index of schema.indexes) {
    const hash = state.indexKeys[index.hash];
    if (!hash) continue;
    if (index.range !== undefined && !state.indexKeys[index.range]) continue;
    partitions.set(index.name, valueText(hash));
  }
  return partitions;
}

/** An update as the request gives it. */
export interface UpdateRequest {
  readonly UpdateExpression?: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
  readonly ExpressionAttributeValues?: AttributeMap;
  readonly AttributeUpdates?: unknown;
}

/** What an update expression does to the top-level attributes it names. */
export interface UpdateEffect {
  /** Top-level attributes it sets, adds to, removes or deletes from. */
  readonly touched: ReadonlySet<string>;
  /** Index key attributes it sets to a plain value, with that value. */
  readonly assigned: ReadonlyMap<string, AttributeValue>;
  /** Index key attributes it removes. */
  readonly removed: ReadonlySet<string>;
  /** An index key attribute changes in a way read only from the item afterwards. */
  readonly opaque: boolean;
}

const CLAUSE = /\b(SET|REMOVE|ADD|DELETE)\b/gi;

/** Splits at top-level commas (not inside a function's parentheses). */
function topLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, at));
      start = at + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

/** What an update does, read from its expression (reserved words are never bare names). */
export function updateEffect(schema: TableSchema, update: UpdateRequest): UpdateEffect {
  const touched = new Set<string>();
  const assigned = new Map<string, AttributeValue>();
  const removed = new Set<string>();
  let opaque = update.AttributeUpdates !== undefined;
  const names = update.ExpressionAttributeNames ?? {};
  const values = update.ExpressionAttributeValues ?? {};
  const topName = (path: string): { name: string; whole: boolean } => {
    const head = /^\s*([#\w-]+)/.exec(path)?.[1] ?? '';
    const name = head.startsWith('#') ? (names[head] ?? head) : head;
    return { name, whole: path.trim() === head };
  };
  const expression = update.UpdateExpression ?? '';
  const marks = [...expression.matchAll(CLAUSE)];
  marks.forEach((mark, position) => {
    const kind = (mark[1] ?? '').toUpperCase();
    const body = expression.slice(
      (mark.index ?? 0) + mark[0].length,
      marks[position + 1]?.index ?? expression.length,
    );
    for (const action of topLevel(body)) {
      if (kind === 'SET') {
        const equals = action.indexOf('=');
        const { name, whole } = topName(action.slice(0, equals));
        touched.add(name);
        if (!schema.indexKeys.has(name)) continue;
        const operand = action.slice(equals + 1).trim();
        const value = /^:[\w-]+$/.test(operand) ? values[operand] : undefined;
        if (whole && value) assigned.set(name, value);
        else opaque = true;
      } else {
        const { name, whole } = topName(action);
        touched.add(name);
        if (!schema.indexKeys.has(name)) continue;
        if (kind === 'REMOVE' && whole) removed.add(name);
        else opaque = true;
      }
    }
  });
  return { touched, assigned, removed, opaque };
}

/** The item's state after an update with this effect, or undefined when it cannot be told. */
export function afterUpdate(
  before: ItemState | null,
  effect: UpdateEffect,
  answered?: AttributeMap,
): ItemState | undefined {
  if (effect.opaque && answered === undefined) return undefined;
  const indexKeys: AttributeMap = { ...(before?.indexKeys ?? {}) };
  for (const [name, value] of effect.assigned) indexKeys[name] = value;
  for (const name of effect.removed) delete indexKeys[name];
  // UPDATED_NEW or ALL_NEW: what DynamoDB itself says the attributes are now.
  for (const [name, value] of Object.entries(answered ?? {})) {
    if (name in indexKeys || effect.touched.has(name)) indexKeys[name] = value;
  }
  return { indexKeys, bytes: before?.bytes };
}

/**
 * An item's size as DynamoDB counts it against the 400 KB limit and in capacity units:
 * attribute names plus values; strings and binaries by their bytes, numbers about a byte per
 * two significant digits plus one, booleans and nulls one byte, lists and maps three bytes
 * plus one per element.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
 */
export function itemSize(item: AttributeMap): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    size += Buffer.byteLength(name, 'utf8') + valueSize(value);
  }
  return size;
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8');
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return binarySize(value.B);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) {
    return value.SS.reduce((sum, each) => sum + Buffer.byteLength(each, 'utf8'), 0);
  }
  if (value.NS !== undefined) return value.NS.reduce((sum, each) => sum + numberSize(each), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, each) => sum + binarySize(each), 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, each) => sum + 1 + valueSize(each), 0);
  if (value.M !== undefined) {
    return (
      3 +
      Object.entries(value.M).reduce(
        (sum, [name, each]) => sum + 1 + Buffer.byteLength(name, 'utf8') + valueSize(each),
        0,
      )
    );
  }
  return 0;
}

// On the wire a binary is base64 text.
function binarySize(value: unknown): number {
  return typeof value === 'string'
    ? Buffer.byteLength(value, 'base64')
    : (value as Uint8Array).byteLength;
}

function numberSize(text: string): number {
  const digits = text
    .replace(/^-/, '')
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+|0+$/g, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1 + (text.startsWith('-') ? 1 : 0);
}

/** The size of an item's entry in an index: its keys and what the index copies. */
export function entrySize(schema: TableSchema, index: IndexSchema, item: AttributeMap): number {
  if (index.projected === undefined) return itemSize(item);
  const entry: AttributeMap = {};
  for (const name of [schema.hash, schema.range, index.hash, index.range, ...index.projected]) {
    const value = name === undefined ? undefined : item[name];
    if (name !== undefined && value) entry[name] = value;
  }
  return itemSize(entry);
}

const UNKNOWN = 'unknown';

/** The items the front has seen, per table: their index keys, or null when known absent. */
export class ItemBook {
  readonly #items = new Map<string, ItemState | null | typeof UNKNOWN>();
  /**
   * The table was created through the front, so every item in it was written through the
   * front: an item it has no entry for does not exist.
   */
  readonly complete: boolean;
  constructor(complete: boolean) {
    this.complete = complete;
  }
  /** The item's state; null when absent; undefined when the front does not know. */
  get(id: string): ItemState | null | undefined {
    const state = this.#items.get(id);
    if (state === UNKNOWN) return undefined;
    if (state === undefined) return this.complete ? null : undefined;
    return state;
  }
  /** Records what the item is now; undefined forgets it (it is read again when needed). */
  set(id: string, state: ItemState | null | undefined): void {
    if (state === undefined) {
      if (this.complete) this.#items.set(id, UNKNOWN);
      else this.#items.delete(id);
    } else if (state === null && this.complete) this.#items.delete(id);
    else this.#items.set(id, state);
  }
  get size(): number {
    return this.#items.size;
  }
}
