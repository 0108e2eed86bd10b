import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import {
  type BatchGetCommand,
  type BatchWriteCommand,
  type DeleteCommand,
  type DynamoDBDocumentClient,
  type GetCommand,
  type PutCommand,
  QueryCommand,
  type QueryCommandInput,
  type TransactWriteCommand,
  type UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { DependencyError } from '../../domain/errors.ts';

/** Every document command the adapters send. */
export type DocumentCommand =
  | BatchGetCommand
  | BatchWriteCommand
  | DeleteCommand
  | GetCommand
  | PutCommand
  | UpdateCommand
  | QueryCommand
  | TransactWriteCommand;

/** Receives the capacity every request consumed; the benchmarks count with it. */
export type CapacityListener = (operation: string, capacity: readonly ConsumedCapacity[]) => void;

/** Errors that mean "a condition of the write did not hold". */
export const CONDITION_FAILED: ReadonlySet<string> = new Set([
  'ConditionalCheckFailedException',
  'TransactionCanceledException',
]);

/** Epoch seconds of a date, as DynamoDB's TTL attribute wants them. */
export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** Errors that mean "the database is not there right now", as opposed to a bug in a request. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status === undefined || status >= 500) return true;
  return /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|LimitExceeded|TransactionInProgress/.test(
    error.name,
  );
}

/**
 * How the adapters talk to DynamoDB: one place that reports capacity (for the benchmarks) and
 * translates failures into the domain's vocabulary (a DependencyError for an outage, `false`
 * for a failed condition), shared by the subscriber store and the campaign store.
 */
export class DynamoRequests {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly onCapacity?: CapacityListener,
  ) {}

  /** Sends a command, reporting capacity and translating failures to our vocabulary. */
  async send<T>(operation: string, command: DocumentCommand): Promise<T> {
    if (this.onCapacity)
      (command.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
    // The client's overloads take one command class at a time; every member of the union is one.
    const send = this.client.send.bind(this.client) as (
      command: DocumentCommand,
    ) => Promise<unknown>;
    try {
      const output = (await send(command)) as T & {
        ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[];
      };
      if (this.onCapacity && output.ConsumedCapacity) {
        const capacity = output.ConsumedCapacity;
        this.onCapacity(operation, Array.isArray(capacity) ? capacity : [capacity]);
      }
      return output;
    } catch (error) {
      if (error instanceof Error && CONDITION_FAILED.has(error.name)) throw error;
      if (isUnavailable(error)) throw new DependencyError('dynamodb', { cause: error });
      throw error;
    }
  }

  /**
   * The items of a query, one page at a time, following LastEvaluatedKey to the end; a caller
   * that has enough leaves its loop, and no further page is read.
   */
  async *queryPages(
    operation: string,
    input: QueryCommandInput,
  ): AsyncGenerator<Record<string, unknown>[]> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.send<{
        Items?: Record<string, unknown>[];
        LastEvaluatedKey?: Record<string, unknown>;
      }>(
        operation,
        new QueryCommand({ ...input, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }),
      );
      yield output.Items ?? [];
      startKey = output.LastEvaluatedKey;
    } while (startKey);
  }

  /** Runs a conditional write; `false` when its condition (or a transaction's) failed. */
  async conditional(operation: string, command: DocumentCommand): Promise<boolean> {
    try {
      await this.send(operation, command);
      return true;
    } catch (error) {
      if (error instanceof Error && CONDITION_FAILED.has(error.name)) {
        const reasons = (error as { CancellationReasons?: { Code?: string }[] })
          .CancellationReasons;
        // A transaction cancelled for any reason but a failed condition (throttling, a
        // concurrent transaction on the same item) is still a conflict worth retrying, but a
        // ValidationError inside it is a bug and must surface.
        if (reasons?.some((reason) => reason.Code === 'ValidationError')) throw error;
        return false;
      }
      throw error;
    }
  }
}
