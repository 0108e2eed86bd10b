import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describeError } from '../../shared/domain/errors.ts';
import type { NewsletterEvent } from '../../shared/domain/events/event-catalogue.ts';
import { deliverEvents } from '../../shared/operations/webhooks/deliver-webhooks.ts';
import { useBackgroundDynamoDb } from '../../shared/runtime/dynamodb-client.ts';
import { webhookDeliveryDeps } from '../../shared/runtime/webhook-delivery-deps.ts';
import { createFunctionRuntime } from '../http/function-runtime.ts';

// Nobody waits on this function: DynamoDB calls may retry longer, as the publisher's do.
useBackgroundDynamoDb();
const runtime = createFunctionRuntime();
const deps = webhookDeliveryDeps();

/**
 * The webhook queue's consumer ([webhooks.delivery]): each message an event as the bus's rule
 * left it (EventBridge's envelope, the event in `detail`). A receiver's failure is logged for
 * the retry sweep, not returned; a message comes back (partial batch response) only when its
 * delivery could not be logged, and the log's once-per-endpoint check keeps it from being
 * sent twice.
 */
export const handler = middy(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: { itemIdentifier: string }[] = [];
  let delivered = 0;
  let failed = 0;
  for (const record of event.Records) {
    try {
      const { detail } = JSON.parse(record.body) as { detail: NewsletterEvent };
      const round = await deliverEvents(deps, [detail]);
      delivered += round.delivered;
      failed += round.failed;
    } catch (error) {
      runtime.log.error('webhook_not_delivered', {
        message: record.messageId,
        cause: describeError(error),
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  runtime.log.info('webhooks_delivered', {
    messages: event.Records.length,
    delivered,
    failed,
    returned: failures.length,
  });
  if (runtime.metricsPublisher.hasStoredMetrics()) runtime.metricsPublisher.publishStoredMetrics();
  return { batchItemFailures: failures };
}).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
