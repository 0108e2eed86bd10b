import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/stand-ins/dynamodb-local.ts';

/**
 * Only the shared DynamoDB Local, for a run that needs no synthesized stack: the mutation runs
 * (vitest.mutate.config.ts) test the domain and operations with the unit and integration
 * suites, which make their own tables in it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamo = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
