import {
  CreateTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  INDEX,
  KEY,
  LISTED_ATTRIBUTES,
  TTL_ATTRIBUTE,
} from '../../shared/adapters/store/table-design.ts';

/**
 * Creates the table of the storage design in DynamoDB Local, as the CDK stack does on AWS.
 * Returns false when it already exists (a restart with kept data).
 */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const index = (design: { name: string; partition: string; sort: string }) => ({
    IndexName: design.name,
    KeySchema: [
      { AttributeName: design.partition, KeyType: 'HASH' as const },
      { AttributeName: design.sort, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...LISTED_ATTRIBUTES] },
  });
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: KEY.partition, AttributeType: 'S' },
          { AttributeName: KEY.sort, AttributeType: 'S' },
          { AttributeName: INDEX.recent.partition, AttributeType: 'S' },
          { AttributeName: INDEX.publicRecent.partition, AttributeType: 'S' },
          { AttributeName: INDEX.recent.sort, AttributeType: 'N' },
        ],
        KeySchema: [
          { AttributeName: KEY.partition, KeyType: 'HASH' },
          { AttributeName: KEY.sort, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [index(INDEX.recent), index(INDEX.publicRecent)],
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
