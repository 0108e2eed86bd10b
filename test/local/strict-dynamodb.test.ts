/**
 * The strict DynamoDB front against DynamoDB's documented behaviour under contention and at its
 * limits (transaction conflict handling, partition throughput, item and request limits), not
 * against what our store expects. Each test starts a front of its own before the run's
 * DynamoDB Local, with a clock and a hold it controls: no test depends on wall-clock time.
 */
import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ThrottlingException,
  TransactGetItemsCommand,
  TransactionCanceledException,
  TransactionConflictException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { itemSize } from '../../infra/local/stand-ins/dynamodb-items.ts';
import {
  type StrictDynamoDb,
  type StrictDynamoDbOptions,
  startStrictDynamoDb,
  strictDynamoDbFromEnv,
} from '../../infra/local/stand-ins/strict-dynamodb.ts';
import { runDynamoLocalEndpoint } from '../support/run-dynamo.ts';

vi.hoisted(() => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
});

const fronts: StrictDynamoDb[] = [];
afterEach(async () => {
  await Promise.all(fronts.splice(0).map((front) => front.stop()));
});

/** A clock the test moves. */
function manualClock(): { now: () => number; advance(ms: number): void } {
  let at = 1_000_000;
  return { now: () => at, advance: (ms) => (at += ms) };
}

/** A hold that lasts until the test ends it; `started` resolves with the wait asked for. */
function manualHold() {
  let started!: (ms: number) => void;
  let end!: () => void;
  const waiting = new Promise<number>((resolve) => (started = resolve));
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    waiting,
    end,
    wait: (ms: number) => {
      started(ms);
      return ended;
    },
  };
}

interface World {
  readonly front: StrictDynamoDb;
  readonly db: DynamoDBClient;
  readonly table: string;
  readonly tableArn: string;
}

const clientOf = (endpoint: string, maxAttempts: number) =>
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts,
  });

/**
 * A front of its own and a table (keys pk/sk, index `by_kind` on kind/id), made through the
 * front unless `behindItsBack`. The client retries as the SDK does by default unless told.
 */
async function world(
  options: StrictDynamoDbOptions,
  { maxAttempts = 3, behindItsBack = false } = {},
): Promise<World> {
  const front = await startStrictDynamoDb({ upstream: runDynamoLocalEndpoint(), ...options });
  fronts.push(front);
  const db = clientOf(front.endpoint, maxAttempts);
  const table = `strict-${randomUUID()}`;
  const maker = behindItsBack ? clientOf(runDynamoLocalEndpoint(), 1) : db;
  const created = await maker.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'kind', AttributeType: 'S' },
        { AttributeName: 'id', AttributeType: 'N' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'by_kind',
          KeySchema: [
            { AttributeName: 'kind', KeyType: 'HASH' },
            { AttributeName: 'id', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['name'] },
        },
      ],
    }),
  );
  return { front, db, table, tableArn: created.TableDescription?.TableArn ?? '' };
}

const s = (text: string): AttributeValue => ({ S: text });
const key = (pk: string, sk = 'item') => ({ pk: s(pk), sk: s(sk) });

/** The error a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected the call to fail');
}

const metadataOf = (error: Record<string, unknown>) =>
  error.$metadata as { httpStatusCode?: number; attempts?: number };

describe('a transaction holds its items (DynamoDB transaction conflict handling)', () => {
  it('cancels a second transaction naming a held item with TransactionConflict on that item and None on the others, refuses single writes, and lets both through after the hold', async () => {
    const hold = manualHold();
    const clock = manualClock();
    const { db, table, front } = await world({ holdMs: 20, wait: hold.wait, now: clock.now });
    const first = db.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { ...key('a'), name: s('A') } } },
          {
            Update: {
              TableName: table,
              Key: key('count'),
              UpdateExpression: 'ADD n :one',
              ExpressionAttributeValues: { ':one': { N: '1' } },
            },
          },
        ],
      }),
    );
    // DynamoDB Local has answered; the transaction still holds its items for the full 20 ms.
    expect(await hold.waiting).toBe(20);

    const second = await failure(
      db.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: key('b') } },
            {
              Update: {
                TableName: table,
                Key: key('count'),
                UpdateExpression: 'ADD n :one',
                ExpressionAttributeValues: { ':one': { N: '1' } },
              },
            },
          ],
        }),
      ),
    );
    expect(second).toBeInstanceOf(TransactionCanceledException);
    expect(metadataOf(second)).toMatchObject({ httpStatusCode: 400, attempts: 1 });
    expect((second as unknown as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
    ]);
    expect(second.message).toBe(
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
    );

    const single = await failure(
      db.send(new PutItemCommand({ TableName: table, Item: { ...key('a'), name: s('B') } })),
    );
    expect(single).toBeInstanceOf(TransactionConflictException);
    expect(single.message).toBe('Transaction is ongoing for the item');
    // Not a throttling or transient error to the SDK: it does not retry it (nor a cancellation).
    expect(metadataOf(single)).toMatchObject({ httpStatusCode: 400, attempts: 1 });

    const read = await failure(
      db.send(
        new TransactGetItemsCommand({
          TransactItems: [{ Get: { TableName: table, Key: key('a') } }],
        }),
      ),
    );
    expect((read as unknown as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
    ]);

    const batch = await db.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [table]: [{ PutRequest: { Item: key('a') } }, { PutRequest: { Item: key('c') } }],
        },
      }),
    );
    expect(batch.UnprocessedItems?.[table]).toEqual([{ PutRequest: { Item: key('a') } }]);

    // A plain read meets no conflict.
    expect((await db.send(new GetItemCommand({ TableName: table, Key: key('a') }))).Item).toEqual({
      ...key('a'),
      name: s('A'),
    });
    expect(front.stats).toMatchObject({ conflicts: 1, cancelledForConflict: 2, unprocessed: 1 });

    hold.end();
    await first;
    await db.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: table, Item: key('b') } },
          {
            Update: {
              TableName: table,
              Key: key('count'),
              UpdateExpression: 'ADD n :one',
              ExpressionAttributeValues: { ':one': { N: '1' } },
            },
          },
        ],
      }),
    );
    await db.send(new PutItemCommand({ TableName: table, Item: { ...key('a'), name: s('B') } }));
    const count = await db.send(new GetItemCommand({ TableName: table, Key: key('count') }));
    expect(count.Item?.n).toEqual({ N: '2' });
  });

  it('answers a transaction no sooner than its hold ends, however fast DynamoDB Local was', async () => {
    const clock = manualClock();
    const waits: number[] = [];
    const { db, table } = await world({
      holdMs: 35,
      now: clock.now,
      wait: async (ms) => {
        waits.push(ms);
      },
    });
    await db.send(
      new TransactWriteItemsCommand({
        TransactItems: [{ Put: { TableName: table, Item: key('x') } }],
      }),
    );
    expect(waits).toEqual([35]);
  });
});

describe('each partition key value takes 1,000 WCU and 3,000 RCU a second, divided by the scale', () => {
  it('throttles a hot partition key at its scaled limit while another key writes on, as an on-demand table answers', async () => {
    const clock = manualClock();
    // 1,000 / 100 = 10 write units a second per partition key value.
    const { db, table, tableArn, front } = await world(
      { scale: 100, now: clock.now },
      { maxAttempts: 1 },
    );
    for (let n = 0; n < 10; n += 1) {
      await db.send(new PutItemCommand({ TableName: table, Item: key('hot', `s${n}`) }));
    }
    const refused = await failure(
      db.send(new PutItemCommand({ TableName: table, Item: key('hot', 's10') })),
    );
    expect(refused).toBeInstanceOf(ThrottlingException);
    expect(metadataOf(refused).httpStatusCode).toBe(400);
    expect(refused.message).toMatch(
      /^Throughput exceeds the current capacity of your table or index\./,
    );
    expect((refused as unknown as ThrottlingException).throttlingReasons).toEqual([
      { reason: 'TableWriteKeyRangeThroughputExceeded', resource: tableArn },
    ]);
    const absent = await db.send(new GetItemCommand({ TableName: table, Key: key('hot', 's10') }));
    expect(absent.Item).toBeUndefined();

    await db.send(new PutItemCommand({ TableName: table, Item: key('cold') }));
    clock.advance(1000);
    await db.send(new PutItemCommand({ TableName: table, Item: key('hot', 's10') }));
    expect(front.stats.throttledWrites).toBe(1);
  });

  it('counts an item by its size: a 3 KB item takes 3 of the 10 units', async () => {
    const clock = manualClock();
    const { db, table } = await world({ scale: 100, now: clock.now }, { maxAttempts: 1 });
    const big = { name: s('x'.repeat(3 * 1024 - 40)) };
    for (let n = 0; n < 3; n += 1) {
      await db.send(
        new PutItemCommand({ TableName: table, Item: { ...key('hot', `s${n}`), ...big } }),
      );
    }
    // 9 units spent, 1 left: one more small write passes, then the partition is spent.
    await db.send(new PutItemCommand({ TableName: table, Item: key('hot', 'small') }));
    await expect(
      db.send(new PutItemCommand({ TableName: table, Item: key('hot', 'late') })),
    ).rejects.toBeInstanceOf(ThrottlingException);
  });

  it('the SDK retries a throttled write itself (it is a throttling error to it)', async () => {
    const clock = manualClock();
    const { db, table } = await world({ scale: 100, now: clock.now }, { maxAttempts: 2 });
    for (let n = 0; n < 10; n += 1) {
      await db.send(new PutItemCommand({ TableName: table, Item: key('hot', `s${n}`) }));
    }
    const refused = await failure(
      db.send(new PutItemCommand({ TableName: table, Item: key('hot', 's10') })),
    );
    expect(refused).toBeInstanceOf(ThrottlingException);
    expect(metadataOf(refused).attempts).toBe(2);
  });

  it('refuses a table write whose index partition is over its limit, though its own table partition is not', async () => {
    const clock = manualClock();
    const { db, table, tableArn } = await world({ scale: 100, now: clock.now }, { maxAttempts: 1 });
    const entry = (n: number) => ({ ...key(`p${n}`), kind: s('subscriber'), id: { N: String(n) } });
    for (let n = 0; n < 10; n += 1) {
      await db.send(new PutItemCommand({ TableName: table, Item: entry(n) }));
    }
    const refused = await failure(
      db.send(new PutItemCommand({ TableName: table, Item: entry(10) })),
    );
    expect(refused).toBeInstanceOf(ThrottlingException);
    expect(refused.message).toBe(
      'Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly.',
    );
    expect((refused as unknown as ThrottlingException).throttlingReasons).toEqual([
      { reason: 'IndexWriteKeyRangeThroughputExceeded', resource: `${tableArn}/index/by_kind` },
    ]);
    expect(
      (await db.send(new GetItemCommand({ TableName: table, Key: key('p10') }))).Item,
    ).toBeUndefined();

    // An update that leaves the index entry alone does not write the index.
    await db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('p1'),
        UpdateExpression: 'SET note = :v',
        ExpressionAttributeValues: { ':v': s('v') },
      }),
    );
    // One that changes a projected attribute writes the hot index partition, and is refused.
    await expect(
      db.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('p2'),
          UpdateExpression: 'SET #name = :v',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':v': s('Ada') },
        }),
      ),
    ).rejects.toBeInstanceOf(ThrottlingException);
  });

  it('cancels a transaction with a ThrottlingError reason on the item whose partition is over its limit', async () => {
    const clock = manualClock();
    const { db, table } = await world({ scale: 100, now: clock.now }, { maxAttempts: 1 });
    for (let n = 0; n < 10; n += 1) {
      await db.send(new PutItemCommand({ TableName: table, Item: key('hot', `s${n}`) }));
    }
    const refused = await failure(
      db.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: key('cold') } },
            { Put: { TableName: table, Item: key('hot', 'tx') } },
          ],
        }),
      ),
    );
    expect(refused).toBeInstanceOf(TransactionCanceledException);
    expect((refused as unknown as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'None' },
      {
        Code: 'ThrottlingError',
        Message: expect.stringMatching(
          /^Throughput exceeds the current capacity of your table or index\./,
        ),
      },
    ]);
    expect(
      (await db.send(new GetItemCommand({ TableName: table, Key: key('cold') }))).Item,
    ).toBeUndefined();
  });

  it('throttles reads at the read limit, eventually consistent ones at half a unit', async () => {
    const clock = manualClock();
    // 3,000 / 100 = 30 read units a second.
    const { db, table, tableArn } = await world({ scale: 100, now: clock.now }, { maxAttempts: 1 });
    await db.send(new PutItemCommand({ TableName: table, Item: key('hot') }));
    await db.send(new PutItemCommand({ TableName: table, Item: key('cold') }));
    for (let n = 0; n < 20; n += 1) {
      await db.send(
        new GetItemCommand({ TableName: table, Key: key('hot'), ConsistentRead: true }),
      );
    }
    for (let n = 0; n < 20; n += 1) {
      await db.send(new GetItemCommand({ TableName: table, Key: key('hot') }));
    }
    const refused = await failure(
      db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': s('hot') },
        }),
      ),
    );
    expect(refused).toBeInstanceOf(ThrottlingException);
    expect((refused as unknown as ThrottlingException).throttlingReasons).toEqual([
      { reason: 'TableReadKeyRangeThroughputExceeded', resource: tableArn },
    ]);
    await db.send(new GetItemCommand({ TableName: table, Key: key('cold'), ConsistentRead: true }));
    const batch = await db.send(
      new BatchGetItemCommand({ RequestItems: { [table]: { Keys: [key('hot'), key('cold')] } } }),
    );
    expect(batch.Responses?.[table]).toEqual([key('cold')]);
    expect(batch.UnprocessedKeys?.[table]?.Keys).toEqual([key('hot')]);
  });

  it('learns the index keys of an item it did not see written by reading them once', async () => {
    const clock = manualClock();
    const local = clientOf(runDynamoLocalEndpoint(), 1);
    const { db, table, front } = await world(
      { scale: 100, now: clock.now },
      { maxAttempts: 1, behindItsBack: true },
    );
    // Written behind the front's back: it has to find out that they sit in one index partition.
    for (let n = 0; n < 11; n += 1) {
      await local.send(
        new PutItemCommand({
          TableName: table,
          Item: { ...key(`p${n}`), kind: s('subscriber'), id: { N: String(n) } },
        }),
      );
    }
    const rename = (n: number) =>
      db.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key(`p${n}`),
          UpdateExpression: 'SET #name = :v',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':v': s(`Name ${n}`) },
        }),
      );
    for (let n = 0; n < 10; n += 1) await rename(n);
    await expect(rename(10)).rejects.toBeInstanceOf(ThrottlingException);
    expect(front.stats.keyReads).toBe(11);
    local.destroy();
  });
});

describe('the answer the caller asked for', () => {
  it('gives back no capacity and no attributes the front asked DynamoDB Local for on its own behalf', async () => {
    const { db, table } = await world({});
    const put = await db.send(new PutItemCommand({ TableName: table, Item: key('a') }));
    expect(put.ConsumedCapacity).toBeUndefined();
    const update = await db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('a'),
        UpdateExpression: 'SET kind = :k, id = :id',
        ExpressionAttributeValues: { ':k': s('subscriber'), ':id': { N: '1' } },
      }),
    );
    expect(update.Attributes).toBeUndefined();
    expect(update.ConsumedCapacity).toBeUndefined();
    // An index key set by a function: the front asks for UPDATED_NEW, and keeps it.
    const opaque = await db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('a'),
        UpdateExpression: 'SET kind = if_not_exists(kind, :k)',
        ExpressionAttributeValues: { ':k': s('other') },
      }),
    );
    expect(opaque.Attributes).toBeUndefined();
    expect(opaque.ConsumedCapacity).toBeUndefined();
    const total = await db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('a'),
        UpdateExpression: 'SET #name = :n',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':n': s('Ada') },
        ReturnConsumedCapacity: 'TOTAL',
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    expect(total.ConsumedCapacity).toEqual({ TableName: table, CapacityUnits: 2 });
    expect(total.Attributes).toEqual({ name: s('Ada') });
  });
});

describe('item and request limits, as DynamoDB answers them (DynamoDB Local already refuses each)', () => {
  const validation = async (promise: Promise<unknown>, message: RegExp) => {
    const error = await failure(promise);
    expect(error.name).toBe('ValidationException');
    expect(metadataOf(error).httpStatusCode).toBe(400);
    expect(error.message).toMatch(message);
  };

  it('an item of 400 KB as DynamoDB measures it is stored; one byte more is refused', async () => {
    const { db, table } = await world({});
    const item = (bytes: number) => {
      const base = { ...key('big'), x: s('') };
      return { ...base, x: s('x'.repeat(bytes - itemSize(base))) };
    };
    expect(itemSize(item(400 * 1024))).toBe(409_600);
    await db.send(new PutItemCommand({ TableName: table, Item: item(400 * 1024) }));
    await validation(
      db.send(new PutItemCommand({ TableName: table, Item: item(400 * 1024 + 1) })),
      /^Item size has exceeded the maximum allowed size$/,
    );
  });

  it('a transaction of more than 100 actions or 4 MB is refused, as are batches past 25 writes or 100 reads', async () => {
    const { db, table } = await world({});
    const puts = (count: number, bytes: number) =>
      Array.from({ length: count }, (_, n) => ({
        Put: { TableName: table, Item: { ...key(`t${n}`), x: s('x'.repeat(bytes)) } },
      }));
    await db.send(new TransactWriteItemsCommand({ TransactItems: puts(100, 10) }));
    await validation(
      db.send(new TransactWriteItemsCommand({ TransactItems: puts(101, 10) })),
      /Member must have length less than or equal to 100/,
    );
    await validation(
      db.send(new TransactWriteItemsCommand({ TransactItems: puts(11, 390_000) })),
      /^Transaction payload size cannot exceed 4MB/,
    );
    await validation(
      db.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [table]: Array.from({ length: 26 }, (_, n) => ({ PutRequest: { Item: key(`b${n}`) } })),
          },
        }),
      ),
      /^Too many items requested for the BatchWriteItem call$/,
    );
    await validation(
      db.send(
        new BatchGetItemCommand({
          RequestItems: { [table]: { Keys: Array.from({ length: 101 }, (_, n) => key(`g${n}`)) } },
        }),
      ),
      /^Too many items requested for the BatchGetItem call$/,
    );
  });
});

describe('DYNAMODB_STRICT=off', () => {
  it('reads the switch, the hold and the scale from the environment', () => {
    expect(strictDynamoDbFromEnv({})).toEqual({ enabled: true, holdMs: 20, scale: 1 });
    expect(
      strictDynamoDbFromEnv({
        DYNAMODB_STRICT: 'off',
        DYNAMODB_HOLD_MS: '5',
        DYNAMODB_SCALE: '10',
      }),
    ).toEqual({ enabled: false, holdMs: 5, scale: 10 });
    expect(() => strictDynamoDbFromEnv({ DYNAMODB_SCALE: '0' })).toThrow(/DYNAMODB_SCALE/);
    expect(() => strictDynamoDbFromEnv({ DYNAMODB_STRICT: 'maybe' })).toThrow(/DYNAMODB_STRICT/);
  });

  it('off, DynamoDB Local behaves as before: no conflicts, no throttling', async () => {
    const clock = manualClock();
    const { db, table } = await world({ enabled: false, scale: 100, now: clock.now });
    const transaction = (pk: string) =>
      db.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: key(pk) } },
            {
              Update: {
                TableName: table,
                Key: key('count'),
                UpdateExpression: 'ADD n :one',
                ExpressionAttributeValues: { ':one': { N: '1' } },
              },
            },
          ],
        }),
      );
    await Promise.all(Array.from({ length: 8 }, (_, n) => transaction(`t${n}`)));
    for (let n = 0; n < 20; n += 1) {
      await db.send(new PutItemCommand({ TableName: table, Item: key('hot', `s${n}`) }));
    }
    const count = await db.send(new GetItemCommand({ TableName: table, Key: key('count') }));
    expect(count.Item?.n).toEqual({ N: '8' });
  });

  it('on, the same concurrent transactions on one count item meet conflicts', async () => {
    const hold = manualHold();
    const { db, table } = await world({ wait: hold.wait });
    const transaction = (pk: string) =>
      db.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: key(pk) } },
            {
              Update: {
                TableName: table,
                Key: key('count'),
                UpdateExpression: 'ADD n :one',
                ExpressionAttributeValues: { ':one': { N: '1' } },
              },
            },
          ],
        }),
      );
    const first = transaction('t0');
    await hold.waiting;
    const others = await Promise.allSettled(
      Array.from({ length: 7 }, (_, n) => transaction(`t${n + 1}`)),
    );
    hold.end();
    await first;
    expect(others.map((outcome) => outcome.status)).toEqual(Array(7).fill('rejected'));
  });
});
