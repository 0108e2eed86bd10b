import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import { describeError } from '../../shared/domain/errors.ts';
import type { FunctionRuntime } from '../http/function-runtime.ts';
import type { StreamConsumerName } from './consumers.ts';

/** The id of a stream record's item: its `pk` without the kind prefix. */
export function itemIdOf(record: DynamoDBRecord, prefix: string): string {
  const pk = record.dynamodb?.Keys?.pk?.S ?? '';
  if (!pk.startsWith(prefix)) throw new Error(`stream record of another kind: ${pk.split('#')[0]}`);
  return pk.slice(prefix.length);
}

/** What one record's work reports back: a log line's fields. */
export type RecordOutcome = Readonly<Record<string, string | number | boolean>>;

/**
 * Work done once for all of a batch's records of one kind instead of record by record (such
 * as adding their changes to the counts in one transaction). It must be idempotent per
 * record: a failure is reported at the kind's first record of the batch, and the event source
 * mapping sends everything from there again.
 */
export interface BatchStep {
  /** Whether a record is this step's, not the per-record handler's. */
  accepts(record: DynamoDBRecord): boolean;
  handle(records: readonly DynamoDBRecord[]): Promise<RecordOutcome>;
}

/** Longest wait between two attempts at a record. */
const MAX_WAIT_MS = 30_000;

/**
 * A stream consumer's handler: each record of the batch is handled on its own and a failing
 * one is reported back (partial batch response, Powertools' BatchProcessor), so the event
 * source mapping retries from it without redoing the others; every record is idempotent
 * anyway. Stream retries come at once, so after a failure the handler waits before answering:
 * `baseMs`, doubling with each failure of the same record in this container, up to 30 s and
 * within the time the invocation has left. A dependency that is away for a while (SES, SSM,
 * DynamoDB throttling) is ridden out instead of burning the retries in a second.
 */
export function streamHandler(
  name: StreamConsumerName,
  runtime: FunctionRuntime,
  baseMs: number,
  handle: (record: DynamoDBRecord) => Promise<RecordOutcome>,
  options: {
    readonly batchStep?: BatchStep;
    /**
     * What must stay in stream order (the address a record is about): records with the same
     * key are handled one after the other, records with different keys at once, so a batch
     * takes about as long as its longest key's records rather than all of them in a row.
     * Without it, the whole batch is handled in order.
     */
    readonly orderKey?: (record: DynamoDBRecord) => string;
  } = {},
): (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse> {
  const { batchStep, orderKey } = options;
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  /** Failures so far per record (by sequence number), in this container. */
  const failuresOf = new Map<string, number>();
  let worstThisBatch = 0;
  const record = async (item: DynamoDBRecord): Promise<void> => {
    const sequence = item.dynamodb?.SequenceNumber ?? '';
    try {
      runtime.log.info('record', { consumer: name, ...(await handle(item)) });
      failuresOf.delete(sequence);
    } catch (error) {
      const failures = (failuresOf.get(sequence) ?? 0) + 1;
      failuresOf.set(sequence, failures);
      worstThisBatch = Math.max(worstThisBatch, failures);
      runtime.log.error('record_failed', {
        consumer: name,
        failures,
        cause: describeError(error),
      });
      throw error;
    }
  };
  const backoff = async (context: Context): Promise<void> => {
    if (worstThisBatch === 0) return;
    const wait = Math.min(baseMs * 2 ** (worstThisBatch - 1), MAX_WAIT_MS);
    const spare = context.getRemainingTimeInMillis() - 5_000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(wait, spare))));
    // A record given up on (dead-lettered) must not keep its count forever.
    if (failuresOf.size > 1000) failuresOf.clear();
  };
  /** Each record after the one before it of the same key, within one batch. */
  const inKeyOrder = (): ((item: DynamoDBRecord) => Promise<void>) => {
    if (!orderKey) return record;
    const last = new Map<string, Promise<void>>();
    return (item) => {
      const key = orderKey(item);
      const next = (last.get(key) ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => record(item));
      last.set(key, next);
      return next;
    };
  };
  /** The batch step's records, handled together; the failure to report, if it failed. */
  const batched = async (records: readonly DynamoDBRecord[]): Promise<string[]> => {
    const first = records[0]?.dynamodb?.SequenceNumber;
    if (!batchStep || first === undefined) return [];
    try {
      runtime.log.info('records', {
        consumer: name,
        records: records.length,
        ...(await batchStep.handle(records)),
      });
      failuresOf.delete(first);
      return [];
    } catch (error) {
      const failures = (failuresOf.get(first) ?? 0) + 1;
      failuresOf.set(first, failures);
      worstThisBatch = Math.max(worstThisBatch, failures);
      runtime.log.error('records_failed', {
        consumer: name,
        failures,
        cause: describeError(error),
      });
      return [first];
    }
  };
  return middy(async (event: DynamoDBStreamEvent, context: Context) => {
    worstThisBatch = 0;
    const together = event.Records.filter((item) => batchStep?.accepts(item) === true);
    const alone = event.Records.filter((item) => batchStep?.accepts(item) !== true);
    try {
      const failed = await batched(together);
      const response =
        alone.length === 0
          ? { batchItemFailures: [] }
          : await processPartialResponse({ Records: alone }, inKeyOrder(), processor, {
              context,
              // A batch that failed whole is retried (and halved) by the event source mapping.
              throwOnFullBatchFailure: failed.length === together.length,
              // In stream order where it matters: the mails of one change go out as decided,
              // one after the other.
              processInParallel: orderKey !== undefined,
            });
      return {
        batchItemFailures: [
          ...response.batchItemFailures,
          ...failed.map((itemIdentifier) => ({ itemIdentifier })),
        ],
      };
    } finally {
      // Partly or wholly failed: the wait comes before the answer either way.
      await backoff(context);
      if (runtime.metricsPublisher.hasStoredMetrics())
        runtime.metricsPublisher.publishStoredMetrics();
    }
  }).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
}
