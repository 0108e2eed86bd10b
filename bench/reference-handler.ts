// The yardstick of the cold-start comparison: the least any function that talks to DynamoDB
// loads. Built with the functions' own bundling options (bench/bundles.ts).
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export const handler = async (): Promise<string> => typeof DynamoDBDocumentClient;
