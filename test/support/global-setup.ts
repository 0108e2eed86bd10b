import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildConsole } from '../../console/build.ts';
import { startDynamoDbLocal } from '../../infra/local/stand-ins/dynamodb-local.ts';
import {
  startStrictDynamoDb,
  strictDynamoDbFromEnv,
} from '../../infra/local/stand-ins/strict-dynamodb.ts';
import { synthesize } from '../../infra/local/synthesize.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The run's DynamoDB as the suites that call it with the SDK see it: the strict front
     * before DynamoDB Local (transaction conflicts, partition throttling), or DynamoDB Local
     * itself under `DYNAMODB_STRICT=off`.
     */
    dynamoEndpoint: string;
    /**
     * DynamoDB Local itself, for what puts a front of its own before it: each local stack,
     * and the front's own tests.
     */
    dynamoLocalEndpoint: string;
    /** The cloud assembly `cdk synth` wrote for this run: what the local stacks run. */
    cdkOut: string;
    /** The console built once for this run: what the local stacks serve at `/`. */
    consoleDir: string;
  }
}

/**
 * Starts one in-memory DynamoDB Local for every test file (each file makes its own table),
 * behind the strict front (infra/local/stand-ins/strict-dynamodb.ts, as `DYNAMODB_STRICT`,
 * `DYNAMODB_HOLD_MS` and `DYNAMODB_SCALE` say; each local stack puts a front of its own before
 * it), and
 * synthesizes the stack once, bundles included, with `cdk synth` as a deployment would. The
 * suites that run the service run exactly these bundles, with the permissions and environment
 * this template gives them. The deployment choices made for tests: functions do not cache the
 * key and settings (parameterCacheSeconds=0), so a test's change applies to the next call; the
 * throttles (every method's, the sign-up and unsubscribe methods' own) and the web ACLs'
 * per-client limits are at their maximum, since a hardening suite sends thousands of requests
 * a minute from one address (the local API and distribution apply them as API Gateway and AWS
 * WAF do; test/e2e/client-limits.test.ts runs a synth of its own with the defaults); and
 * the stream consumers' backoff after a failure starts at 50 ms instead of a second, so a test
 * of SES coming back does not wait minutes (the retries and their doubling are the deployed
 * ones: 8 retries, about 13 s in all here).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const scratch = await mkdtemp(join(tmpdir(), 'newsletter-test-'));
  // The console first: the synth deploys it (ConsoleSite), and the stacks serve what it staged.
  const consoleDir = await buildConsole(join(scratch, 'console'));
  const [dynamo, cdkOut] = await Promise.all([
    startDynamoDbLocal(),
    synthesize({
      outdir: join(scratch, 'cdk.out'),
      parameterCacheSeconds: 0,
      bundle: true,
      context: {
        throttleRate: '10000',
        throttleBurst: '5000',
        signUpThrottleRate: '10000',
        signUpThrottleBurst: '5000',
        unsubscribeThrottleRate: '10000',
        unsubscribeThrottleBurst: '5000',
        wafSignUpLimit: '2000000000',
        wafUnsubscribeLimit: '2000000000',
        wafApiLimit: '2000000000',
        streamRetryBaseMs: '50',
        consoleDir,
      },
    }),
  ]);
  project.provide('consoleDir', consoleDir);
  const strict = strictDynamoDbFromEnv(process.env);
  const front = strict.enabled
    ? await startStrictDynamoDb({ ...strict, upstream: dynamo.endpoint })
    : undefined;
  project.provide('dynamoEndpoint', front?.endpoint ?? dynamo.endpoint);
  project.provide('dynamoLocalEndpoint', dynamo.endpoint);
  project.provide('cdkOut', cdkOut);
  return async () => {
    await front?.stop();
    await dynamo.stop();
    await rm(scratch, { recursive: true, force: true });
  };
}
