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

/**
 * Errors that may mean "a condition of the write did not hold". A TransactionCanceledException
 * reaches a caller only when one of its reasons is a failed condition (or a bug): one cancelled
 * for a conflict or a throttle is retried in `DynamoRequests.send`.
 */
export const CONDITION_FAILED: ReadonlySet<string> = new Set([
  'ConditionalCheckFailedException',
  'TransactionCanceledException',
]);

/**
 * Reasons of a cancelled transaction that say "the same request may succeed a moment later":
 * another transaction held one of its items, or a partition was over its throughput. Only
 * `ConditionalCheckFailed` says a condition did not hold (toolchain.md, "DynamoDB under
 * contention"); DynamoDB cancels a whole transaction for any of these and applies nothing.
 */
const TRANSIENT_REASONS: ReadonlySet<string> = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

/** Attempts of a request whose transaction or item was contended, before it is an outage. */
export const CONTENDED_ATTEMPTS = 10;

/** Longest wait between two attempts of a contended request. */
const CONTENDED_BACKOFF_CAP_MS = 800;

/** Codes of a cancelled transaction's reasons, `None` for the items that were fine. */
export function cancellationReasons(error: unknown): readonly string[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code ?? 'None');
}

/**
 * Whether DynamoDB refused the request only because of other work on the same items or
 * partitions: a single-item write to an item inside a running transaction, or a transaction
 * cancelled for a conflict or a throttle. The SDK retries neither (it retries throttling
 * exceptions of single requests itself, which end up as an outage when they persist).
 */
export function isContended(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TransactionConflictException') return true;
  return cancellationReasons(error)?.some((code) => TRANSIENT_REASONS.has(code)) ?? false;
}

/** Epoch seconds of a date, as DynamoDB's TTL attribute wants them. */
export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** Errors that mean "the database is not there right now", as opposed to a bug in a request. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (isContended(error)) return true;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status === undefined || status >= 500) return true;
  return /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|LimitExceeded|TransactionInProgress/.test(
    error.name,
  );
}

/** Full jitter: a random wait up to a doubling bound, so contending writers spread out. */
function contendedBackoff(attempt: number, sleep: (ms: number) => Promise<void>): Promise<void> {
  return sleep(Math.random() * Math.min(CONTENDED_BACKOFF_CAP_MS, 10 * 2 ** attempt));
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How the adapters talk to DynamoDB: one place that reports capacity (for the benchmarks) and
 * translates failures into the domain's vocabulary (a DependencyError for an outage, `false`
 * for a failed condition), shared by the subscriber store and the campaign store.
 */
export class DynamoRequests {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly onCapacity?: CapacityListener,
    /** Told of each contended attempt that will be retried; the benchmarks count them. */
    private readonly onContended?: (operation: string) => void,
    private readonly sleep: (ms: number) => Promise<void> = realSleep,
  ) {}

  /**
   * Sends a command, reporting capacity and translating failures to our vocabulary. A request
   * refused only because other work held its items or partitions (`isContended`) is sent
   * again after a jittered backoff; when that keeps happening it is an outage
   * (DependencyError), never a failed condition.
   */
  async send<T>(operation: string, command: DocumentCommand): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#sendOnce<T>(operation, command);
      } catch (error) {
        if (!isContended(error)) {
          if (error instanceof Error && CONDITION_FAILED.has(error.name)) throw error;
          if (isUnavailable(error)) throw new DependencyError('dynamodb', { cause: error });
          throw error;
        }
        if (attempt >= CONTENDED_ATTEMPTS) throw new DependencyError('dynamodb', { cause: error });
        this.onContended?.(operation);
        await contendedBackoff(attempt, this.sleep);
      }
    }
  }

  async #sendOnce<T>(operation: string, command: DocumentCommand): Promise<T> {
    if (this.onCapacity)
      (command.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
    // The client's overloads take one command class at a time; every member of the union is one.
    const send = this.client.send.bind(this.client) as (
      command: DocumentCommand,
    ) => Promise<unknown>;
    const output = (await send(command)) as T & {
      ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[];
    };
    if (this.onCapacity && output.ConsumedCapacity) {
      const capacity = output.ConsumedCapacity;
      this.onCapacity(operation, Array.isArray(capacity) ? capacity : [capacity]);
    }
    return output;
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

  /**
   * Runs a conditional write; `false` only when one of its conditions did not hold. A
   * transaction cancelled for anything else that `send` does not retry (a ValidationError, an
   * item collection over its size) is a bug or a limit, and surfaces as the error it is.
   */
  async conditional(operation: string, command: DocumentCommand): Promise<boolean> {
    try {
      await this.send(operation, command);
      return true;
    } catch (error) {
      if (!(error instanceof Error) || !CONDITION_FAILED.has(error.name)) throw error;
      const reasons = cancellationReasons(error);
      if (reasons && !reasons.includes('ConditionalCheckFailed')) throw error;
      return false;
    }
  }
}
