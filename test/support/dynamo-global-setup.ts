import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/stand-ins/dynamodb-local.ts';
import {
  startStrictDynamoDb,
  strictDynamoDbFromEnv,
} from '../../infra/local/stand-ins/strict-dynamodb.ts';

/**
 * One in-memory DynamoDB Local per worker, each behind a strict front of its own (as
 * `DYNAMODB_STRICT`, `DYNAMODB_HOLD_MS` and `DYNAMODB_SCALE` say), provided to the test files
 * as `dynamoEndpoints` and `dynamoLocalEndpoints` (test/support/run-dynamo.ts picks a
 * worker's). DynamoDB Local answers one database's requests one at a time: with one for the
 * whole run, a file importing 10,000 rows made the file beside it wait behind each of its
 * requests (docs/testing.md, "One DynamoDB Local per worker").
 */
export async function provideRunDynamoDbs(project: TestProject): Promise<() => Promise<void>> {
  const count = Math.max(1, project.globalConfig.maxWorkers);
  const strict = strictDynamoDbFromEnv(process.env);
  const started = await Promise.all(
    Array.from({ length: count }, async () => {
      const dynamo = await startDynamoDbLocal();
      const front = strict.enabled
        ? await startStrictDynamoDb({ ...strict, upstream: dynamo.endpoint })
        : undefined;
      return { dynamo, front };
    }),
  );
  project.provide(
    'dynamoEndpoints',
    started.map(({ dynamo, front }) => front?.endpoint ?? dynamo.endpoint),
  );
  project.provide(
    'dynamoLocalEndpoints',
    started.map(({ dynamo }) => dynamo.endpoint),
  );
  return async () => {
    await Promise.all(
      started.map(async ({ dynamo, front }) => {
        await front?.stop();
        await dynamo.stop();
      }),
    );
  };
}

/**
 * Only the run's DynamoDB Locals, for a run that needs no synthesized stack: the mutation
 * runs (vitest.mutate.config.ts) test the domain and operations with the unit and integration
 * suites, which make their own tables in them.
 */
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return provideRunDynamoDbs(project);
}
