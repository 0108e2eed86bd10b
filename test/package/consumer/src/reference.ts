// The yardstick (bench/reference-handler.ts): the least a Lambda that talks to DynamoDB bundles.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const handler = async (): Promise<string> => typeof DynamoDBDocumentClient;
