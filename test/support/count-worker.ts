/**
 * The table-changes reader's counting, for integration tests that drive the store and the
 * operations directly (the e2e and deployed suites run the real event source mapping): it
 * reads the test table's own stream in DynamoDB Local, record by record as DynamoDB Streams
 * serves them, and hands the subscriber changes to the same operation the function runs.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { inject } from 'vitest';
import { wireImage } from '../../infra/local/cloud/stream-mappings.ts';
import type { Store } from '../../shared/adapters/store/store-port.ts';
import { fromSubscriberItem } from '../../shared/adapters/store/subscriber-item.ts';
import {
  countSubscriberChanges,
  type SubscriberChange,
} from '../../shared/operations/subscribers/count-subscriber-changes.ts';
import { LOCAL_CREDENTIALS, localDynamoClient } from './local-dynamo.ts';

/** Reads a table's stream on demand and counts what it has not counted yet. */
export interface CountWorker {
  /** Whether the table has a stream to count from. */
  hasStream(): Promise<boolean>;
  /** Counts every subscriber change made so far; resolves to the records counted. */
  catchUp(): Promise<number>;
  /**
   * The subscriber changes made since the last catch-up, as the stream holds them, without
   * counting them: a test may hand them over twice, as a redelivery would.
   */
  read(): Promise<SubscriberChange[]>;
}

const image = (value: Record<string, AttributeValue> | undefined) =>
  value ? fromSubscriberItem(unmarshall(wireImage(value))) : undefined;

function changeOf(record: _Record): SubscriberChange | undefined {
  const pk = record.dynamodb?.Keys?.pk?.S ?? '';
  if (!pk.startsWith('SUBSCRIBER#')) return undefined;
  const before = image(record.dynamodb?.OldImage);
  const after = image(record.dynamodb?.NewImage);
  return {
    eventId: record.eventID ?? '',
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
  };
}

/** Where a table's stream was left: its ARN and the iterator of each shard's next records. */
interface StreamPosition {
  streamArn?: string;
  readonly iterators: Map<string, string>;
}

const positions = new Map<string, StreamPosition>();
const CLOSED = '';

/** A worker over `tableName`'s stream, counting into `store`. */
export function countWorker(
  tableName: string,
  store: Pick<Store, 'applyCountChanges'>,
  now: () => Date = () => new Date(),
): CountWorker {
  const raw = localDynamoClient();
  const streams = new DynamoDBStreamsClient({
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
    endpoint: inject('dynamoEndpoint'),
  });
  // One reader per table, as one event source mapping is: every worker over a table goes on
  // where the last one left, rather than reading the stream again from its start (a test that
  // makes a worker per round would otherwise read, and offer again, everything before it).
  let position = positions.get(tableName);
  if (position === undefined) {
    position = { iterators: new Map() };
    positions.set(tableName, position);
  }
  const { iterators } = position;
  const hasStream = async (): Promise<boolean> => {
    position.streamArn ??= (
      await raw.send(new DescribeTableCommand({ TableName: tableName }))
    ).Table?.LatestStreamArn;
    return position.streamArn !== undefined;
  };
  const read = async (): Promise<SubscriberChange[]> => {
    await hasStream();
    const streamArn = position.streamArn;
    if (!streamArn)
      throw new Error(
        `table ${tableName} has no stream: make it with freshStore(…, { stream: true })`,
      );
    const shards =
      (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription
        ?.Shards ?? [];
    const changes: SubscriberChange[] = [];
    for (const shard of shards) {
      const id = shard.ShardId ?? '';
      // A closed shard read to its end has no next iterator: nothing more will come from it.
      if (iterators.get(id) === CLOSED) continue;
      let iterator =
        iterators.get(id) ??
        (
          await streams.send(
            new GetShardIteratorCommand({
              StreamArn: streamArn,
              ShardId: id,
              ShardIteratorType: 'TRIM_HORIZON',
            }),
          )
        ).ShardIterator;
      while (iterator) {
        const output = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        for (const record of output.Records ?? []) {
          const change = changeOf(record);
          if (change) changes.push(change);
        }
        iterators.set(id, output.NextShardIterator ?? CLOSED);
        iterator = (output.Records ?? []).length > 0 ? output.NextShardIterator : undefined;
      }
    }
    return changes;
  };
  return {
    hasStream,
    read,
    catchUp: async () => countSubscriberChanges(store, await read(), now()),
  };
}
