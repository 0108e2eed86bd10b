import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { readEngagementEvent } from '../../shared/adapters/mail/ses-engagement-event.ts';
import { recordEngagement } from '../../shared/operations/campaign/record-engagement.ts';
import { useBackgroundDynamoDb } from '../../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { serviceParameters } from '../../shared/runtime/parameters.ts';
import { engagementStore } from '../../shared/runtime/store.ts';
import { createFunctionRuntime } from '../http/function-runtime.ts';

// Nobody waits on this function: DynamoDB calls may retry longer, as the campaign engine's do.
useBackgroundDynamoDb();
const runtime = createFunctionRuntime();
const deps = {
  log: runtime.log,
  metrics: runtime.metrics,
  // `campaign.tracking` says what may be stored ([engagement.modes]).
  settings: serviceParameters(readEnvironment()).settings,
  engagement: engagementStore(readEnvironment()),
};

/**
 * The engagement queue's consumer ([engagement.batch]): SES publishes each open and click of a
 * tracked campaign mail to the engagement topic, SNS puts it on the queue, and Lambda hands it
 * here in batches. The batch is recorded as a whole (folded first, so repeats cost nothing);
 * events that could not be recorded now are reported back (partial batch response) and come
 * again after the queue's visibility timeout, then go to its dead-letter queue.
 */
export const handler = middy(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  try {
    const outcome = await recordEngagement(
      deps,
      event.Records.map((record) => ({
        messageId: record.messageId,
        reading: readEngagementEvent(record.body),
      })),
    );
    runtime.log.info('engagement_batch', {
      messages: event.Records.length,
      mode: outcome.mode,
      ...outcome.counts,
    });
    return { batchItemFailures: outcome.failed.map((id) => ({ itemIdentifier: id })) };
  } finally {
    if (runtime.metricsPublisher.hasStoredMetrics())
      runtime.metricsPublisher.publishStoredMetrics();
  }
}).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
