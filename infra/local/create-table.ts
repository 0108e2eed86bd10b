import {
  CreateTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  INDEX,
  type IndexDesign,
  KEY,
  STREAM_VIEW,
  TTL_ATTRIBUTE,
} from '../../shared/adapters/store/table-design.ts';

/**
 * Creates the table of the storage design in DynamoDB Local, as the CDK stack does on AWS, its
 * stream only when asked for (a test that reads it: DynamoDB Local slows down for every table
 * as stream records pile up). Returns false when it already exists (a restart with kept data).
 */
export async function createTable(
  client: DynamoDBClient,
  tableName: string,
  options: { readonly stream?: boolean } = {},
): Promise<boolean> {
  const index = (design: IndexDesign) => ({
    IndexName: design.name,
    KeySchema: [
      { AttributeName: design.partition, KeyType: 'HASH' as const },
      { AttributeName: design.sort, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...design.attributes] },
  });
  const indexKeys = new Map<string, 'S' | 'N'>();
  for (const design of Object.values(INDEX)) {
    indexKeys.set(design.partition, 'S');
    indexKeys.set(design.sort, design.sortType);
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: KEY.partition, AttributeType: 'S' },
          { AttributeName: KEY.sort, AttributeType: 'S' },
          ...[...indexKeys].map(([name, type]) => ({ AttributeName: name, AttributeType: type })),
        ],
        KeySchema: [
          { AttributeName: KEY.partition, KeyType: 'HASH' },
          { AttributeName: KEY.sort, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: Object.values(INDEX).map(index),
        // As the stack's table: the subscriber counts are kept from it (a test reads it with
        // test/support/count-worker.ts where the stack's reader does not run).
        ...(options.stream
          ? { StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW } }
          : {}),
      }),
    );
  } catch (error) {
    if (error instanceof ResourceInUseException) return false;
    throw error;
  }
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
  return true;
}
