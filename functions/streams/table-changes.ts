import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { fromSubscriberItem } from '../../shared/adapters/store/subscriber-item.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { settleSubscribeRequest } from '../../shared/operations/subscribe.ts';
import {
  countSubscriberChanges,
  type SubscriberChange,
} from '../../shared/operations/subscribers/count-subscriber-changes.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { tableFunction } from '../http/table-function.ts';
import { itemIdOf, streamHandler } from './stream-handler.ts';

const { runtime, deps } = tableFunction();
const { streamRetryBaseMs } = readEnvironment();

const isSubscriber = (record: DynamoDBRecord): boolean =>
  record.dynamodb?.Keys?.pk?.S?.startsWith('SUBSCRIBER#') === true;

/** A stream image as the subscriber record it holds. */
function recordOf(image: Record<string, unknown> | undefined) {
  // The stream's images are DynamoDB's attribute values, which the types of aws-lambda and
  // of the SDK spell differently.
  return image
    ? fromSubscriberItem(unmarshall(image as Record<string, AttributeValue>))
    : undefined;
}

function changeOf(record: DynamoDBRecord): SubscriberChange {
  const before = recordOf(record.dynamodb?.OldImage);
  const after = recordOf(record.dynamodb?.NewImage);
  return {
    eventId: record.eventID ?? '',
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
  };
}

/**
 * The table's stream, keyless subscribe requests (REQUEST# inserts), one by one: applies the
 * subscribe rules; and every change of a subscriber, a batch at a time: keeps the counts.
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
      accepts: isSubscriber,
      handle: async (records) => ({
        counted: await countSubscriberChanges(deps.store, records.map(changeOf), deps.now()),
      }),
    },
    // Requests for different addresses are settled at once; two for one address in order.
    orderKey: (record) => record.dynamodb?.NewImage?.params?.M?.email?.S ?? '',
  },
);
