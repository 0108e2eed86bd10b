import {
  type AttributeValue,
  type ConsumedCapacity,
  DynamoDBClient,
  GetItemCommand,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTable } from '../infra/local/create-table.ts';
import type { CapacityListener } from '../shared/adapters/store/dynamo-store.ts';
import { toCountedSubscriberItem } from '../shared/adapters/store/subscriber-item.ts';
import { INDEX, KEY, LISTED_ATTRIBUTES } from '../shared/adapters/store/table-design.ts';
import type { NewsletterIssueRecord } from '../shared/domain/newsletter-issue.ts';
import type { SubscriberRecord } from '../shared/domain/subscriber.ts';
import { CLIENT_OPTIONS } from '../shared/runtime/client-options.ts';

/** Fake credentials: DynamoDB Local checks that requests are signed, not by whom. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'bench', secretAccessKey: 'bench' };

/** Raw and document clients for DynamoDB Local, configured like the functions' own. */
export interface LocalClients {
  readonly raw: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  /** The DynamoDB Local these clients call. */
  readonly endpoint: string;
  /**
   * DynamoDB API calls (`GetItem`, `Query`…) sent through these clients, in order; a
   * transaction whose capacity was modelled (see below) is marked `TransactWriteItems*`.
   */
  readonly calls: string[];
  /** The DynamoDB API of the request that completed last (`GetItem`…). */
  readonly lastCompleted: () => string | undefined;
}

/** Options of the local clients. */
export interface LocalClientOptions {
  /**
   * Replace the ConsumedCapacity DynamoDB Local returns for TransactWriteItems by the figure
   * DynamoDB's documented rules give (transactionCapacity). DynamoDB Local 3.3 under-reports
   * transactions of more than one item (three new token items come back as 2 units, not 6),
   * while its single-item figures match the rules.
   */
  readonly modelTransactions?: boolean;
}

/** Clients for `endpoint` with the functions' client options and marshalling. */
export function localClients(endpoint: string, options: LocalClientOptions = {}): LocalClients {
  const config = { endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS };
  const raw = new DynamoDBClient({ ...CLIENT_OPTIONS, ...config });
  const calls: string[] = [];
  let lastCompleted: string | undefined;
  const modelled = new WeakMap<object, ConsumedCapacity[]>();
  // The document client shares this stack, so every request of the store passes here once.
  raw.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? '?').replace(/Command$/, '');
      calls.push(options.modelTransactions && name === 'TransactWriteItems' ? `${name}*` : name);
      const result = await next(args);
      lastCompleted = name;
      const model = modelled.get(context);
      const output = result.output as { ConsumedCapacity?: ConsumedCapacity[] };
      if (model && output.ConsumedCapacity) output.ConsumedCapacity = model;
      return result;
    },
    { step: 'initialize', name: 'benchCallCounter' },
  );
  if (options.modelTransactions) {
    // A separate client, so that reading the items a transaction touches, before and after,
    // is neither counted nor metered.
    const lookup = new DynamoDBClient(config);
    raw.middlewareStack.add(
      (next, context) => async (args) => {
        const { body } = args.request as { body?: unknown };
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        // The serialiser leaves the JSON as a string or as UTF-8 bytes (whose valueOf warns).
        const text =
          body instanceof Uint8Array
            ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
            : body;
        if (typeof text !== 'string') throw new Error('bench: cannot read a transaction body');
        const model = await transactionCapacity(lookup, JSON.parse(text), () => next(args));
        modelled.set(context, model.capacity);
        return model.result;
      },
      { step: 'build', name: 'benchTransactionModel' },
    );
  }
  const doc = DynamoDBDocumentClient.from(raw, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { raw, doc, endpoint, calls, lastCompleted: () => lastCompleted };
}

type AttributeMap = Record<string, AttributeValue>;

interface TransactRequest {
  TableName?: string;
  ReturnConsumedCapacity?: string;
  TransactItems?: {
    Put?: { TableName: string; Item: AttributeMap };
    Delete?: { TableName: string; Key: AttributeMap };
    Update?: { TableName: string; Key: AttributeMap };
    ConditionCheck?: { TableName: string; Key: AttributeMap };
  }[];
}

/**
 * Write units of a TransactWriteItems request by DynamoDB's rules: every item costs twice
 * its units (1 KB each, rounded up; a changed item counts at the larger of old and new, a
 * condition check at the item's size), and so does every index entry the write creates,
 * changes or removes. An index entry is the table key, the index key and the projected
 * attributes; a write that leaves them as they were does not write the index. Each item is
 * read before and after the transaction runs, so updates are measured, not predicted.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
 */
async function transactionCapacity<T>(
  lookup: DynamoDBClient,
  request: TransactRequest,
  run: () => Promise<T>,
): Promise<{ capacity: ConsumedCapacity[]; result: T }> {
  const units = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
  const read = async (tableName: string, key: AttributeMap) =>
    (
      await lookup.send(
        new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
      )
    ).Item;
  const targets = (request.TransactItems ?? []).map((action) => {
    const target = action.Put ?? action.Delete ?? action.Update ?? action.ConditionCheck;
    if (!target) throw new Error('bench: a transaction action of an unknown kind');
    const key = action.Put ? keyOf(action.Put.Item) : (target as { Key: AttributeMap }).Key;
    return { tableName: target.TableName, key, check: Boolean(action.ConditionCheck) };
  });
  const before = await Promise.all(targets.map((target) => read(target.tableName, target.key)));
  const result = await run();
  const after = await Promise.all(targets.map((target) => read(target.tableName, target.key)));
  const byTable = new Map<string, { table: number; indexes: Map<string, number> }>();
  targets.forEach((target, position) => {
    const old = before[position];
    const next = target.check ? old : after[position];
    const totals = byTable.get(target.tableName) ?? {
      table: 0,
      indexes: new Map<string, number>(),
    };
    byTable.set(target.tableName, totals);
    totals.table += 2 * units(Math.max(attributeMapSize(old ?? {}), attributeMapSize(next ?? {})));
    for (const index of Object.values(INDEX)) {
      const entryBefore = old ? indexEntry(old, index) : undefined;
      const entryAfter = next ? indexEntry(next, index) : undefined;
      if (JSON.stringify(entryBefore) === JSON.stringify(entryAfter)) continue;
      const bytes = Math.max(
        attributeMapSize(entryBefore ?? {}),
        attributeMapSize(entryAfter ?? {}),
      );
      totals.indexes.set(index.name, (totals.indexes.get(index.name) ?? 0) + 2 * units(bytes));
    }
  });
  const capacity = [...byTable].map(([TableName, totals]) => {
    const indexUnits = [...totals.indexes.values()].reduce((sum, value) => sum + value, 0);
    return {
      TableName,
      CapacityUnits: totals.table + indexUnits,
      Table: { CapacityUnits: totals.table },
      GlobalSecondaryIndexes: Object.fromEntries(
        [...totals.indexes].map(([name, value]) => [name, { CapacityUnits: value }]),
      ),
    };
  });
  return { capacity, result };
}

function keyOf(item: AttributeMap): AttributeMap {
  const key: AttributeMap = {};
  for (const name of [KEY.partition, KEY.sort]) {
    const value = item[name];
    if (value) key[name] = value;
  }
  return key;
}

/** The entry an item has in an index (sorted by name), or none when it lacks the index key. */
function indexEntry(
  item: AttributeMap,
  index: { partition: string; sort: string },
): [string, AttributeValue][] | undefined {
  if (!item[index.partition] || !item[index.sort]) return undefined;
  const names = new Set<string>([
    KEY.partition,
    KEY.sort,
    index.partition,
    index.sort,
    ...LISTED_ATTRIBUTES,
  ]);
  return Object.entries(item)
    .filter(([name]) => names.has(name))
    .sort(([a], [b]) => a.localeCompare(b));
}

function attributeMapSize(item: AttributeMap | [string, AttributeValue][]): number {
  const entries = Array.isArray(item) ? item : Object.entries(item);
  return entries.reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name, 'utf8') + attributeValueSize(value),
    0,
  );
}

/** Size of one AttributeValue by the rules dynamoItemSize follows. */
function attributeValueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8');
  if (value.N !== undefined) return numberSize(value.N);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.B !== undefined) return value.B.length;
  // A set is the sum of its members.
  if (value.SS !== undefined)
    return value.SS.reduce((sum, each) => sum + Buffer.byteLength(each, 'utf8'), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, each) => sum + numberSize(each), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, each) => sum + each.length, 0);
  if (value.L !== undefined) {
    return 3 + value.L.reduce((sum, item) => sum + 1 + attributeValueSize(item), 0);
  }
  if (value.M !== undefined) {
    return (
      3 +
      Object.entries(value.M).reduce(
        (sum, [name, item]) => sum + 1 + Buffer.byteLength(name, 'utf8') + attributeValueSize(item),
        0,
      )
    );
  }
  throw new Error(`bench: no size rule for ${JSON.stringify(value)}`);
}

/** A number takes a byte per two significant digits plus one (plus one when negative). */
function numberSize(text: string): number {
  // Leading and trailing zeros are not stored.
  const digits = text
    .replace(/^-/, '')
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+|0+$/g, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1 + (text.startsWith('-') ? 1 : 0);
}

/** Creates a table of the storage design (as the stack and `npm start` do). */
export async function createBenchTable(clients: LocalClients, name: string): Promise<void> {
  if (!(await createTable(clients.raw, name))) throw new Error(`bench: table ${name} exists`);
}

/** Where capacity was consumed: the table or one of its indexes. */
export type CapacityTarget = 'table' | (typeof INDEX)[keyof typeof INDEX]['name'];

/** Capacity units by target, reads and writes apart. */
export interface CapacityUse {
  readonly read: ReadonlyMap<CapacityTarget, number>;
  readonly write: ReadonlyMap<CapacityTarget, number>;
  /** DynamoDB API calls made, in order. */
  readonly calls: readonly string[];
}

// DynamoDB APIs that read; an API not in either set is an error, not a guess.
const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

/**
 * Adds up the ConsumedCapacity (ReturnConsumedCapacity=INDEXES) the store reports. DynamoDB
 * Local reports CapacityUnits per table and index but not the read/write split, so the split
 * comes from the API of the request, which the store reports right after it completes.
 */
export class CapacityMeter {
  private read = new Map<CapacityTarget, number>();
  private write = new Map<CapacityTarget, number>();
  private firstCall = 0;

  constructor(private readonly clients: LocalClients) {}

  /** The listener to hand to `new DynamoStore(client, table, listener)`. */
  readonly listener: CapacityListener = (operation, capacity) => {
    const api = this.clients.lastCompleted() ?? '';
    const isRead = READS.has(api);
    if (!isRead && !WRITES.has(api)) {
      throw new Error(`bench: classify ${api} (store request ${operation}) as read or write`);
    }
    const into = isRead ? this.read : this.write;
    for (const entry of capacity) add(into, entry);
  };

  /** Starts a new measurement. */
  reset(): void {
    this.read = new Map();
    this.write = new Map();
    this.firstCall = this.clients.calls.length;
  }

  /** What was consumed since the last reset. */
  snapshot(): CapacityUse {
    return {
      read: new Map(this.read),
      write: new Map(this.write),
      calls: this.clients.calls.slice(this.firstCall),
    };
  }
}

function add(into: Map<CapacityTarget, number>, entry: ConsumedCapacity): void {
  const plus = (target: CapacityTarget, units: number | undefined) => {
    if (units) into.set(target, (into.get(target) ?? 0) + units);
  };
  plus('table', entry.Table?.CapacityUnits);
  for (const [name, index] of Object.entries(entry.GlobalSecondaryIndexes ?? {})) {
    plus(name as CapacityTarget, index.CapacityUnits);
  }
}

/** Total units of one kind over all targets. */
export function totalUnits(units: ReadonlyMap<CapacityTarget, number>): number {
  let sum = 0;
  for (const value of units.values()) sum += value;
  return sum;
}

/**
 * The item DynamoStore writes for a subscriber record (its own `toCountedSubscriberItem`);
 * `checkItemShape` compares it with an item the store wrote. The loader writes no count items:
 * the tables it fills have no `subscriber_counts` mark, so listings walk the index.
 */
export function subscriberItem(record: SubscriberRecord): Record<string, unknown> {
  return toCountedSubscriberItem(record);
}

/** Throws unless two items have the same attribute names, value kinds and DynamoDB size. */
export function checkItemShape(written: Record<string, unknown>, ours: Record<string, unknown>) {
  const shape = (item: Record<string, unknown>) =>
    Object.keys(item)
      .sort()
      .map((key) => `${key}:${Array.isArray(item[key]) ? 'list' : typeof item[key]}`)
      .join(',');
  if (shape(written) !== shape(ours)) {
    throw new Error(
      `bench: loader items differ from the store's:\n${shape(written)}\n${shape(ours)}`,
    );
  }
  if (dynamoItemSize(written) !== dynamoItemSize(ours)) {
    throw new Error(
      `bench: loader item size ${dynamoItemSize(ours)} B, store's ${dynamoItemSize(written)} B`,
    );
  }
}

/**
 * Item size as DynamoDB bills it: attribute names plus values; strings in UTF-8 bytes,
 * numbers about one byte per two significant digits plus one, booleans and nulls one byte,
 * lists and maps three bytes plus one per element.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
 */
export function dynamoItemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    size += Buffer.byteLength(name, 'utf8') + valueSize(value);
  }
  return size;
}

function valueSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return numberSize(String(value));
  if (typeof value === 'boolean' || value === null) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum, item) => sum + 1 + valueSize(item), 0);
  if (typeof value === 'object') {
    return (
      3 +
      Object.entries(value as Record<string, unknown>).reduce(
        (sum, [key, item]) => sum + 1 + Buffer.byteLength(key, 'utf8') + valueSize(item),
        0,
      )
    );
  }
  throw new Error(`bench: no DynamoDB size for ${typeof value}`);
}

/**
 * Writes items with BatchWriteItem, 25 per request and `concurrency` requests in flight,
 * retrying unprocessed items; the fast way to fill DynamoDB Local for the scaling runs.
 */
export async function batchPut(
  clients: LocalClients,
  table: string,
  count: number,
  item: (index: number) => Record<string, unknown>,
  concurrency = 24,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const start = next;
      next = Math.min(count, next + 25);
      let requests = Array.from({ length: next - start }, (_, offset) => ({
        PutRequest: { Item: item(start + offset) },
      }));
      for (let attempt = 0; requests.length > 0; attempt += 1) {
        if (attempt === 10) throw new Error('bench: BatchWriteItem keeps leaving items behind');
        const output = await clients.doc.send(
          new BatchWriteCommand({ RequestItems: { [table]: requests } }),
        );
        requests = (output.UnprocessedItems?.[table] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * Issues for the `newsletters` listing: `count` issues, ids 1…count, a mix of sent, sending,
 * draft and private, so that keyless and keyed callers both get a full page of 10.
 */
export function newsletterIssues(count: number, now: Date): NewsletterIssueRecord[] {
  return Array.from({ length: count }, (_, index) => {
    const id = index + 1;
    const status = id % 7 === 0 ? 'draft' : id % 11 === 0 ? 'sending' : 'sent';
    const created = new Date(now.getTime() - (count - index) * 7 * 86_400_000).toISOString();
    return {
      id,
      subject: `Issue ${id}: news from the team, events and a few tips`,
      status,
      created,
      sent_at: status === 'sent' ? created : null,
      private: id % 5 === 0,
      ...(status === 'sent' ? { url: `https://news.example.com/issues/${id}` } : {}),
    };
  });
}
