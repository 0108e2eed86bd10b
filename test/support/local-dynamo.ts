import { randomUUID } from 'node:crypto';
import {
  DeleteTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createTable } from '../../infra/local/create-table.ts';
import { type CapacityListener, DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import { KEY, TTL_ATTRIBUTE } from '../../shared/adapters/store/table-design.ts';
import { madeTable } from './made-tables.ts';
import { runDynamoEndpoint } from './run-dynamo.ts';

/** Fake credentials: DynamoDB Local checks that requests are signed, not by whom. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A client for the run's DynamoDB Local. */
export function localDynamoClient(): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: runDynamoEndpoint(),
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
}

/**
 * A new, empty table of the storage design, and a store over it; with `stream`, the table's
 * stream too, for a test that counts subscribers from it (test/support/count-worker.ts).
 */
export async function freshStore(
  onCapacity?: CapacityListener,
  options: { readonly stream?: boolean } = {},
): Promise<{
  store: DynamoStore;
  tableName: string;
  client: DynamoDBDocumentClient;
}> {
  const raw = localDynamoClient();
  const tableName = `test-${randomUUID()}`;
  await createTable(raw, tableName, options);
  madeTable(tableName, (tables) => dropTables(raw, tables));
  const client = DynamoDBDocumentClient.from(raw, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { store: new DynamoStore(client, tableName, onCapacity), tableName, client };
}

async function dropTables(raw: DynamoDBClient, tables: readonly string[]): Promise<void> {
  await Promise.all(
    tables.map(async (TableName) => {
      try {
        await raw.send(new DeleteTableCommand({ TableName }));
      } catch (error) {
        // A test that dropped its own table already.
        if (!(error instanceof ResourceNotFoundException)) throw error;
      }
    }),
  );
}

/**
 * A document client on a running DynamoDB Local, as an operator's tool would open one: for
 * tests that read or arrange the table behind the service's back.
 */
export function documentClient(endpoint: string): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
}

/**
 * What DynamoDB's TTL process does, which DynamoDB Local does not: deletes every item whose
 * TTL attribute is a time before `now` (epoch s). AWS deletes within days of that time; a test
 * that moves its clock past a lifetime calls this to see what is left. The number deleted.
 */
export async function expireTtlItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  now: number,
): Promise<number> {
  let deleted = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        ConsistentRead: true,
        FilterExpression: '#ttl < :now',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':now': now },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      await client.send(
        new DeleteCommand({
          TableName: tableName,
          Key: { [KEY.partition]: item[KEY.partition], [KEY.sort]: item[KEY.sort] },
        }),
      );
      deleted += 1;
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return deleted;
}
