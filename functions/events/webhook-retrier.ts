import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { retryDue } from '../../shared/operations/webhooks/deliver-webhooks.ts';
import { useBackgroundDynamoDb } from '../../shared/runtime/dynamodb-client.ts';
import { webhookDeliveryDeps } from '../../shared/runtime/webhook-delivery-deps.ts';
import { createFunctionRuntime } from '../http/function-runtime.ts';

useBackgroundDynamoDb();
const runtime = createFunctionRuntime();
const deps = webhookDeliveryDeps();

/**
 * The retry sweep ([webhooks.retries]), every minute by an EventBridge rule: the deliveries
 * whose next attempt is due are attempted again. A failure throws: the next minute's sweep
 * finds the same due items.
 */
export const handler = middy(async (): Promise<void> => {
  const round = await retryDue(deps);
  runtime.log.info('webhooks_retried', { delivered: round.delivered, failed: round.failed });
  if (runtime.metricsPublisher.hasStoredMetrics()) runtime.metricsPublisher.publishStoredMetrics();
}).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
