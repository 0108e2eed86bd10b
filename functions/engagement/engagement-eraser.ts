import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { DynamoEngagementEraser } from '../../shared/adapters/store/dynamo-engagement-eraser.ts';
import { erasePersonalEngagement } from '../../shared/operations/campaign/erase-personal-engagement.ts';
import {
  dynamoDocumentClient,
  useBackgroundDynamoDb,
} from '../../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { serviceParameters } from '../../shared/runtime/parameters.ts';
import { createFunctionRuntime } from '../http/function-runtime.ts';
import { engagementEraser, engagementRecorder } from './engagement-function.ts';

// Nobody waits on this function: DynamoDB calls may retry longer, as the campaign engine's do.
useBackgroundDynamoDb();
const runtime = createFunctionRuntime();
const environment = readEnvironment();
const deps = {
  settings: serviceParameters(environment).settings,
  now: () => new Date(),
  log: runtime.log,
  eraser: new DynamoEngagementEraser(dynamoDocumentClient(), environment.tableName),
  // A recorder keeps the settings it read for the cache's lifetime, and a batch for its
  // timeout; a minute more for the clocks.
  settleMs: environment.parameterCacheMs + (engagementRecorder.timeoutSeconds + 60) * 1000,
  budgetMs: engagementEraser.budgetSeconds * 1000,
};

/**
 * Every ten minutes (an EventBridge rule): once `campaign.tracking` has left `individual`,
 * erases the per-person opens and clicks stored, a bounded part per run ([engagement.switch]).
 */
export const handler = middy(async (_event: ScheduledEvent) => {
  const outcome = await erasePersonalEngagement(deps);
  if (outcome.status === 'erasing' || outcome.status === 'erased')
    runtime.log.info('engagement_erasure', { ...outcome });
  return outcome;
}).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
