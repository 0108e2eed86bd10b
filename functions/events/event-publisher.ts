import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EventBridgeEventBus } from '../../shared/adapters/events/eventbridge-event-bus.ts';
import { DynamoPublishedMarks } from '../../shared/adapters/store/dynamo-published-marks.ts';
import { DynamoRequests } from '../../shared/adapters/store/dynamo-requests.ts';
import { describeError } from '../../shared/domain/errors.ts';
import type { NewsletterEvent } from '../../shared/domain/events/event-catalogue.ts';
import { publishEvents } from '../../shared/operations/events/publish-events.ts';
import { CLIENT_OPTIONS } from '../../shared/runtime/client-options.ts';
import {
  dynamoDocumentClient,
  useBackgroundDynamoDb,
} from '../../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { EVENTS_ENV, readRequired } from '../../shared/runtime/events-environment.ts';
import { createFunctionRuntime } from '../http/function-runtime.ts';

// Nobody waits on this function: DynamoDB calls may retry longer, as the campaign engine's do.
useBackgroundDynamoDb();
const runtime = createFunctionRuntime();
const deps = {
  bus: new EventBridgeEventBus(
    new EventBridgeClient(CLIENT_OPTIONS),
    readRequired(EVENTS_ENV.eventBus),
  ),
  marks: new DynamoPublishedMarks(
    new DynamoRequests(dynamoDocumentClient()),
    readEnvironment().tableName,
  ),
  now: () => new Date(),
};

/**
 * The events queue's consumer ([events.once]): each message one event the table's stream
 * reader derived; those not yet on the bus are put there. What the bus refused comes back
 * after the queue's visibility timeout (partial batch response); when the bus or DynamoDB is
 * away the whole batch does. Nothing is deleted before it is on the bus.
 */
export const handler = middy(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const messages = event.Records.map((record) => ({
    messageId: record.messageId,
    event: JSON.parse(record.body) as NewsletterEvent,
  }));
  try {
    const outcome = await publishEvents(
      deps,
      messages.map((message) => message.event),
    );
    runtime.log.info('events_published', {
      messages: messages.length,
      published: outcome.published,
      repeated: outcome.repeated,
      refused: outcome.retry.size,
    });
    return {
      batchItemFailures: messages
        .filter((message) => outcome.retry.has(message.event.id))
        .map((message) => ({ itemIdentifier: message.messageId })),
    };
  } catch (error) {
    runtime.log.error('events_not_published', {
      messages: messages.length,
      cause: describeError(error),
    });
    return {
      batchItemFailures: messages.map((message) => ({ itemIdentifier: message.messageId })),
    };
  } finally {
    if (runtime.metricsPublisher.hasStoredMetrics())
      runtime.metricsPublisher.publishStoredMetrics();
  }
}).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
