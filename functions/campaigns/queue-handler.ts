import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { describeError } from '../../shared/domain/errors.ts';
import type { FunctionRuntime } from '../http/function-runtime.ts';
import type { RecordOutcome } from '../streams/stream-handler.ts';
import type { CampaignFunctionName } from './campaign-functions.ts';

/**
 * A campaign queue's handler: each message is parsed against its schema and handled on its
 * own; a failing one is reported back (partial batch response), so SQS makes it visible again
 * after the queue's visibility timeout and, after the queue's receive limit, moves it to the
 * dead-letter queue. A message that does not parse is logged (never its body) and dropped:
 * no retry can mend it.
 */
export function queueHandler<TSchema extends v.GenericSchema>(
  name: CampaignFunctionName,
  runtime: FunctionRuntime,
  schema: TSchema,
  handle: (
    message: v.InferOutput<TSchema>,
    record: SQSRecord,
    context: Context,
  ) => Promise<RecordOutcome>,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  return middy(async (event: SQSEvent, context: Context) => {
    const record = async (item: SQSRecord): Promise<void> => {
      let body: unknown;
      try {
        body = JSON.parse(item.body);
      } catch {
        body = undefined;
      }
      const parsed = v.safeParse(schema, body);
      if (!parsed.success) {
        const issue = parsed.issues[0];
        runtime.log.error('message_malformed', {
          function: name,
          message_id: item.messageId,
          where: issue ? (v.getDotPath(issue) ?? 'body') : 'body',
        });
        return;
      }
      try {
        runtime.log.info('message', {
          function: name,
          receive_count: Number(item.attributes.ApproximateReceiveCount),
          ...(await handle(parsed.output, item, context)),
        });
      } catch (error) {
        runtime.log.error('message_failed', { function: name, cause: describeError(error) });
        throw error;
      }
    };
    try {
      return await processPartialResponse(event, record, processor, {
        context,
        // Messages of a FIFO group must stay in order; with one message per batch this costs
        // nothing anywhere.
        processInParallel: false,
      });
    } finally {
      if (runtime.metricsPublisher.hasStoredMetrics())
        runtime.metricsPublisher.publishStoredMetrics();
    }
  }).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
}
