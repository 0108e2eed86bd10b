/**
 * Pages of `GET /subscribers` on a large base (issue 38, point 4; [v2.paging-counts]): a base
 * of 200,000 subscribers of mixed statuses and lists, counted as every write counts them.
 * Prints, per page asked, the read units the directory consumed (counts, index, records) and
 * the time against DynamoDB Local (not DynamoDB's: see below); then the same first page of a
 * table not yet counted, which walks the whole index, for comparison.
 *
 * `npm run bench:pages` (`-- --base N` for another size).
 */
import { parseArgs } from 'node:util';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '../infra/local/stand-ins/dynamodb-local.ts';
import {
  behindStrictFront,
  strictDynamoDbFromEnv,
} from '../infra/local/stand-ins/strict-dynamodb.ts';
import {
  DynamoSubscriberDirectory,
  type SubscriberPageQuery,
} from '../shared/adapters/store/dynamo-subscriber-directory.ts';
import { toCountedSubscriberItem } from '../shared/adapters/store/subscriber-item.ts';
import { COUNT_SHARDS, KEY, keys } from '../shared/adapters/store/table-design.ts';
import type { SubscriberRecord, SubscriberStatus } from '../shared/domain/subscriber.ts';
import { countChanges } from '../shared/domain/subscriber-counts.ts';
import { CLIENT_OPTIONS } from '../shared/runtime/client-options.ts';
import { batchPut, createBenchTable, LOCAL_CREDENTIALS, localClients } from './dynamo.ts';

const { values } = parseArgs({ options: { base: { type: 'string', default: '200000' } } });
const BASE = Number(values.base);
const TABLE = 'PagesBench';

const figure = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A fixed mix: most confirmed, some pending, unsubscribed and blocked; lists of all sizes. */
function record(index: number): SubscriberRecord {
  const id = index + 1;
  const status: SubscriberStatus =
    id % 20 === 0 ? 'S' : id % 20 === 1 ? 'U' : id % 50 === 2 ? 'B' : id % 50 === 3 ? 'P' : 'C';
  const lists = [1, ...(id % 5 === 0 ? [2] : []), ...(id % 20 === 7 ? [3] : [])];
  const stamp = new Date(Date.UTC(2026, 0, 1) + id * 60_000).toISOString();
  return {
    id,
    email: `base-${String(id).padStart(7, '0')}@example.com`,
    name: `Reader ${id}`,
    surname: '',
    gender: '',
    lists,
    profile: {},
    status,
    created: stamp,
    updated: stamp,
    version: 1,
    tokens: {},
  };
}

async function main(): Promise<void> {
  const dynamo = await behindStrictFront(
    await startDynamoDbLocal(),
    strictDynamoDbFromEnv(process.env),
  );
  try {
    const clients = localClients(dynamo.endpoint);
    await createBenchTable(clients, TABLE);
    const seeding = Date.now();
    await batchPut(clients, TABLE, BASE, (index) => toCountedSubscriberItem(record(index)));
    // The count items as the writes would have left them, added up from the records.
    const cells = new Map<string, Record<string, unknown>>();
    for (let index = 0; index < BASE; index += 1) {
      const subscriber = record(index);
      for (const change of countChanges(undefined, subscriber)) {
        if (change.cell.kind !== 'kept') continue;
        const key = keys.keptCount(subscriber.id % COUNT_SHARDS, change.cell.block);
        const name = `${key[KEY.partition]}|${key[KEY.sort]}`;
        const cell = cells.get(name) ?? { ...key };
        for (const [attribute, amount] of Object.entries(change.add))
          cell[attribute] = Number(cell[attribute] ?? 0) + amount;
        cells.set(name, cell);
      }
    }
    const counts = [...cells.values()];
    await batchPut(clients, TABLE, counts.length, (index) => counts[index] ?? {});
    const mark = (ready: boolean) =>
      clients.doc.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: keys.counter('subscriber'),
          UpdateExpression: 'SET next_id = :last, list_index = :ready, subscriber_counts = :ready',
          ExpressionAttributeValues: { ':last': BASE, ':ready': ready },
        }),
      );
    await mark(true);
    console.log(
      `seeded ${figure(BASE)} subscribers and ${figure(counts.length)} count items in ${figure((Date.now() - seeding) / 1000, 1)} s`,
    );

    let units = 0;
    const reads = (_operation: string, capacity: readonly ConsumedCapacity[]) => {
      for (const each of capacity) units += each.CapacityUnits ?? each.ReadCapacityUnits ?? 0;
    };
    // DynamoDB Local answers a ranged Query of a large index partition slowly (seconds at
    // 200,000 entries, where DynamoDB answers in milliseconds): its times are not DynamoDB's,
    // so the directory's client here waits longer than the functions' 3 s. Read units are
    // what this bench is for.
    const patient = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        ...CLIENT_OPTIONS,
        requestHandler: { ...CLIENT_OPTIONS.requestHandler, requestTimeout: 120_000 },
        endpoint: dynamo.endpoint,
        region: 'us-east-1',
        credentials: LOCAL_CREDENTIALS,
      }),
    );
    const directory = new DynamoSubscriberDirectory(patient, TABLE, reads);
    const last = Math.ceil(BASE / 10);
    const asks: [string, Omit<SubscriberPageQuery, 'order'> & { order?: 'asc' | 'desc' }][] = [
      ['page 1, newest first', { page: 1, perPage: 10 }],
      [`page ${figure(last / 2)} of ${figure(last)}`, { page: Math.floor(last / 2), perPage: 10 }],
      [`page ${figure(last)}, the last`, { page: last, perPage: 10 }],
      ['page 1, by id, 100 a page', { page: 1, perPage: 100, order: 'asc' }],
      ['list 3 (5%), page 50', { page: 50, perPage: 10, list: 3 }],
      ['status unsubscribed, page 200', { page: 200, perPage: 10, status: 'U' }],
      ['list 2, confirmed, page 1,000', { page: 1000, perPage: 10, list: 2, status: 'C' }],
      ['search base-00123 (100 matches)', { page: 1, perPage: 10, emailPrefix: 'base-00123' }],
      ['search base-001 (10,000 matches)', { page: 3, perPage: 10, emailPrefix: 'base-001' }],
    ];
    console.log('| page | total | RRU | ms |');
    console.log('| --- | --- | --- | --- |');
    const run = async (label: string, query: SubscriberPageQuery) => {
      units = 0;
      const started = performance.now();
      const found = await directory.page(query, new Date());
      await directory.records(found.emails);
      const ms = performance.now() - started;
      console.log(`| ${label} | ${figure(found.total)} | ${figure(units, 1)} | ${figure(ms)} |`);
    };
    for (const [label, query] of asks) await run(label, { order: 'desc', ...query });
    await mark(false);
    await run('page 1, a table not yet counted (the walk)', {
      page: 1,
      perPage: 10,
      order: 'desc',
    });
  } finally {
    await dynamo.stop();
  }
}

await main();
