import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { SqsEventOutbox } from '../../shared/adapters/events/sqs-event-outbox.ts';
import { fromSubscriberItem } from '../../shared/adapters/store/subscriber-item.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { RecipientImage } from '../../shared/domain/events/engagement-events.ts';
import type { IssueImage } from '../../shared/domain/events/issue-events.ts';
import { recordEvents, type TableChange } from '../../shared/operations/events/record-events.ts';
import { settleSubscribeRequest } from '../../shared/operations/subscribe.ts';
import { countSubscriberChanges } from '../../shared/operations/subscribers/count-subscriber-changes.ts';
import { CLIENT_OPTIONS } from '../../shared/runtime/client-options.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { EVENTS_ENV, readRequired } from '../../shared/runtime/events-environment.ts';
import { subscriberLookup } from '../../shared/runtime/store.ts';
import { tableFunction } from '../http/table-function.ts';
import { itemIdOf, streamHandler } from './stream-handler.ts';

const { runtime, deps } = tableFunction();
const environment = readEnvironment();
const { streamRetryBaseMs } = environment;
const outbox = new SqsEventOutbox(
  new SQSClient(CLIENT_OPTIONS),
  readRequired(EVENTS_ENV.eventsQueue),
);
const lookup = subscriberLookup(environment);

const keyOf = (record: DynamoDBRecord): string => record.dynamodb?.Keys?.pk?.S ?? '';
const isSubscriber = (record: DynamoDBRecord): boolean => keyOf(record).startsWith('SUBSCRIBER#');
const isRecipient = (record: DynamoDBRecord): boolean => keyOf(record).startsWith('RECIPIENTS#');
const isIssue = (record: DynamoDBRecord): boolean =>
  keyOf(record).startsWith('NEWSLETTER#') && record.dynamodb?.Keys?.sk?.S === 'newsletter';

/** A stream image as a plain item. */
function itemOf(image: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  // The stream's images are DynamoDB's attribute values, which the types of aws-lambda and
  // of the SDK spell differently.
  return image ? unmarshall(image as Record<string, AttributeValue>) : undefined;
}

/** What a stream record changed, in the operations' words. */
function changeOf(record: DynamoDBRecord): TableChange {
  const before = itemOf(record.dynamodb?.OldImage);
  const after = itemOf(record.dynamodb?.NewImage);
  const seconds = Number(record.dynamodb?.ApproximateCreationDateTime ?? 0);
  const common = {
    eventId: record.eventID ?? '',
    sequence: record.dynamodb?.SequenceNumber ?? '0',
    at: seconds > 0 ? new Date(seconds * 1000) : deps.now(),
    // DynamoDB's TTL deletes as the service itself.
    byTtl: record.userIdentity?.type === 'Service',
  };
  if (isRecipient(record))
    return {
      kind: 'recipient',
      ...common,
      // `RECIPIENTS#<issue>#<shard>`, or `RECIPIENTS#<issue>` for an issue sent before shards.
      issueId: Number(keyOf(record).split('#')[1]),
      ...(before ? { before: before as unknown as RecipientImage } : {}),
      ...(after ? { after: after as unknown as RecipientImage } : {}),
    };
  if (isIssue(record))
    return {
      kind: 'issue',
      ...common,
      ...(before ? { before: before as unknown as IssueImage } : {}),
      ...(after ? { after: after as unknown as IssueImage } : {}),
    };
  return {
    kind: 'subscriber',
    ...common,
    ...(before ? { before: fromSubscriberItem(before) } : {}),
    ...(after ? { after: fromSubscriberItem(after) } : {}),
  };
}

/**
 * The table's stream: keyless subscribe requests (REQUEST# inserts), one by one: applies the
 * subscribe rules; every change of a subscriber or an issue, a batch at a time: keeps the
 * counts and leaves the events the changes make on the events queue.
 */
export const handler = streamHandler(
  'table-changes',
  runtime,
  streamRetryBaseMs,
  async (record) => {
    const id = itemIdOf(record, 'REQUEST#');
    const outcome = await settleSubscribeRequest(deps, id);
    // An error value (contention, the links' base missing) is retried, then dead-lettered.
    if (isNewsletterError(outcome)) throw new Error(`request ${id}: ${outcome.code}`);
    return { request_id: id, outcome };
  },
  {
    batchStep: {
      accepts: (record) => isSubscriber(record) || isIssue(record) || isRecipient(record),
      handle: async (records) => {
        const changes = records.map(changeOf);
        const subscribers = changes.flatMap((change) =>
          change.kind === 'subscriber' ? [change] : [],
        );
        const counted = await countSubscriberChanges(deps.store, subscribers, deps.now());
        const events = await recordEvents(
          {
            outbox,
            lookup,
            tracking: async () => (await deps.settings()).campaign.tracking,
          },
          changes,
        );
        return { counted, events };
      },
    },
    // Requests for different addresses are settled at once; two for one address in order.
    orderKey: (record) => record.dynamodb?.NewImage?.params?.M?.email?.S ?? '',
  },
);
