import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SNSEvent, SNSEventRecord } from 'aws-lambda';
import { readSesEvent } from '../../shared/adapters/mail/ses-event.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { recordFeedback } from '../../shared/operations/record-feedback.ts';
import { runOperation } from '../../shared/operations/run-operation.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { campaignStore } from '../../shared/runtime/store.ts';
import { tableFunction } from '../http/table-function.ts';

const { runtime, deps: tableDeps } = tableFunction();
const deps = { ...tableDeps, campaigns: campaignStore(readEnvironment()) };

/**
 * One notification of the feedback topic: an SES event. A message that is not an SES event is
 * logged and dropped, since retrying it cannot help; a failure to record (DynamoDB or the
 * settings away, contention) is thrown, so Lambda retries the invocation.
 */
async function handleRecord(record: SNSEventRecord): Promise<void> {
  const reading = readSesEvent(record.Sns.Message);
  if (reading.kind === 'malformed') {
    runtime.log.warn('feedback_malformed', {
      message_id: record.Sns.MessageId,
      issue: reading.issue,
    });
    return;
  }
  if (reading.kind === 'ignored') {
    runtime.log.info('feedback_ignored', { event_type: reading.eventType.slice(0, 40) });
    return;
  }
  const { feedback } = reading;
  const outcomes = await runOperation(deps, 'record_feedback', () =>
    recordFeedback(deps, feedback),
  );
  if (isNewsletterError(outcomes)) {
    throw new Error(`feedback of mail ${feedback.mailId} not recorded: ${outcomes.code}`);
  }
  for (const { outcome, subscriberId } of outcomes) {
    // The subscriber's id, never its address.
    runtime.log.info('feedback', {
      kind: feedback.kind,
      detail: feedback.detail,
      mail_id: feedback.mailId,
      outcome,
      ...(subscriberId === undefined ? {} : { subscriber_id: subscriberId }),
    });
  }
}

/**
 * The feedback topic's subscriber: SES publishes each bounce, complaint and delivery of the
 * mailer's configuration set to the topic, and SNS invokes this function (asynchronously: a
 * thrown error is retried twice by Lambda). docs/behaviour.md, "Feedback".
 */
export const handler = middy(async (event: SNSEvent): Promise<void> => {
  try {
    for (const record of event.Records) await handleRecord(record);
  } finally {
    if (runtime.metricsPublisher.hasStoredMetrics())
      runtime.metricsPublisher.publishStoredMetrics();
  }
}).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
