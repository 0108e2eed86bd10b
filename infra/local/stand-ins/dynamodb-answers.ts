/**
 * The errors the strict DynamoDB front gives, in DynamoDB's JSON protocol, shaped as the AWS
 * SDK v3 model parses them (member names as in @aws-sdk/client-dynamodb's schema: `message`
 * for TransactionConflictException and ThrottlingException, `Message` and `CancellationReasons`
 * for TransactionCanceledException, `throttlingReasons` on ThrottlingException and
 * `ThrottlingReasons` on ProvisionedThroughputExceededException). All are HTTP 400, as
 * DynamoDB answers them.
 */
import type { Direction, Partition } from './dynamodb-partitions.ts';

/** An answer to send instead of DynamoDB Local's. */
export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** One entry of a TransactionCanceledException's `CancellationReasons`. */
export interface CancellationReason {
  readonly Code: string;
  readonly Message?: string;
  readonly Item?: unknown;
}

const TYPE = 'com.amazonaws.dynamodb.v20120810#';

/** The message DynamoDB gives for an item inside a running transaction. */
export const CONFLICT_MESSAGE = 'Transaction is ongoing for the item';

/** The documented messages of a throttled on-demand table and index. */
export const ON_DEMAND_MESSAGE = {
  table:
    'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html',
  index:
    'Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly.',
} as const;

/** The documented messages of a throttled provisioned table and index. */
export const PROVISIONED_MESSAGE = {
  table:
    'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  index:
    'The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API.',
} as const;

/** A single-item write to an item a transaction holds. */
export function transactionConflict(): Answer {
  return {
    status: 400,
    body: { __type: `${TYPE}TransactionConflictException`, message: CONFLICT_MESSAGE },
  };
}

/** A cancelled transaction, its reasons in the order of its items. */
export function transactionCanceled(reasons: readonly CancellationReason[]): Answer {
  return {
    status: 400,
    body: {
      __type: `${TYPE}TransactionCanceledException`,
      CancellationReasons: reasons,
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons
        .map((reason) => reason.Code)
        .join(', ')}]`,
    },
  };
}

/** The reason of a transaction item that met a running transaction. */
export const CONFLICT_REASON: CancellationReason = {
  Code: 'TransactionConflict',
  Message: CONFLICT_MESSAGE,
};

/** What was throttled: the table or index, and how the table is billed. */
export interface Throttled {
  readonly partition: Partition;
  readonly direction: Direction;
  /** The table's or index's ARN. */
  readonly resource: string;
  readonly provisioned: boolean;
}

/** `TableWriteKeyRangeThroughputExceeded` and the like: what was throttled, and why. */
export function throttlingReason(throttled: Throttled): { reason: string; resource: string } {
  const resource = throttled.partition.index === undefined ? 'Table' : 'Index';
  const operation = throttled.direction === 'read' ? 'Read' : 'Write';
  return {
    reason: `${resource}${operation}KeyRangeThroughputExceeded`,
    resource: throttled.resource,
  };
}

function messageOf(throttled: Throttled): string {
  const messages = throttled.provisioned ? PROVISIONED_MESSAGE : ON_DEMAND_MESSAGE;
  // Reads of an index get the table-or-index message; the index one speaks of its writes.
  return throttled.partition.index !== undefined && throttled.direction === 'write'
    ? messages.index
    : messages.table;
}

/**
 * A request refused for its partition's throughput: ThrottlingException on an on-demand table
 * (as DynamoDB answers a hot key there), ProvisionedThroughputExceededException on a
 * provisioned one, with the reason and resource.
 */
export function throttled(throttled: Throttled): Answer {
  const reasons = [throttlingReason(throttled)];
  return throttled.provisioned
    ? {
        status: 400,
        body: {
          __type: `${TYPE}ProvisionedThroughputExceededException`,
          message: messageOf(throttled),
          ThrottlingReasons: reasons,
        },
      }
    : {
        status: 400,
        body: {
          __type: `${TYPE}ThrottlingException`,
          message: messageOf(throttled),
          throttlingReasons: reasons,
        },
      };
}

/** The reason of a transaction item whose partition is over its limit. */
export function throttledReason(throttled: Throttled): CancellationReason {
  return {
    Code: throttled.provisioned ? 'ProvisionedThroughputExceeded' : 'ThrottlingError',
    Message: messageOf(throttled),
  };
}
