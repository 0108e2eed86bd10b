import { DynamoStore } from '../adapters/store/dynamo-store.ts';
import { dynamoDocumentClient } from './dynamodb-client.ts';
import type { Environment } from './environment.ts';

/** The table of the environment, through the container's one DynamoDB client. */
export function tableStore(environment: Environment): DynamoStore {
  return new DynamoStore(dynamoDocumentClient(), environment.tableName);
}
