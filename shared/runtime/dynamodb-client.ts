import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CLIENT_OPTIONS } from './client-options.ts';

let client: DynamoDBDocumentClient | undefined;

/** The container's one DynamoDB document client, created on first use. */
export function dynamoDocumentClient(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient(CLIENT_OPTIONS), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return client;
}
