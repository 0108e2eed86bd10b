import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/stand-ins/dynamodb-local.ts';
import {
  startStrictDynamoDb,
  strictDynamoDbFromEnv,
} from '../../infra/local/stand-ins/strict-dynamodb.ts';

/**
 * Only the shared DynamoDB Local (behind the strict front, as global-setup.ts), for a run that needs no synthesized stack: the mutation runs
 * (vitest.mutate.config.ts) test the domain and operations with the unit and integration
 * suites, which make their own tables in it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamo = await startDynamoDbLocal();
  const strict = strictDynamoDbFromEnv(process.env);
  const front = strict.enabled
    ? await startStrictDynamoDb({ ...strict, upstream: dynamo.endpoint })
    : undefined;
  project.provide('dynamoEndpoint', front?.endpoint ?? dynamo.endpoint);
  project.provide('dynamoLocalEndpoint', dynamo.endpoint);
  return async () => {
    await front?.stop();
    await dynamo.stop();
  };
}
