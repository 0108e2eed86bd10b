import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BACKGROUND_DYNAMODB_OPTIONS, CLIENT_OPTIONS } from './client-options.ts';

let client: DynamoDBDocumentClient | undefined;
let background = false;

/**
 * Makes the container's DynamoDB client the campaign functions' (BACKGROUND_DYNAMODB_OPTIONS);
 * call before anything uses it, at module scope.
 */
export function useBackgroundDynamoDb(): void {
  if (client) throw new Error('the DynamoDB client exists already');
  background = true;
}

/** The container's one DynamoDB document client, created on first use. */
export function dynamoDocumentClient(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(
    new DynamoDBClient(background ? BACKGROUND_DYNAMODB_OPTIONS : CLIENT_OPTIONS),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return client;
}
