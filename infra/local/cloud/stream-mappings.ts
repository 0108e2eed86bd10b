/**
 * The Lambda service's side of a DynamoDB stream event source mapping, for the template's
 * mappings: it reads the table's stream in DynamoDB Local with the function's role (through the
 * IAM-checked endpoint, so DescribeStream, GetShardIterator, GetRecords and ListStreams are
 * authorized as on AWS), keeps the records the mapping's filters pass, invokes the function
 * with batches shaped as Lambda delivers them, takes back the records a partial batch response
 * names, halves a failing batch (bisect), retries up to the mapping's limit, and then sends the
 * batch's description to the on-failure queue, as Lambda does, with the function's role.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeployedStreamMapping } from './deployed-stack.ts';
import { LOCAL_REGION, TemplateError } from './intrinsics.ts';
import type { FunctionCredentials, InvocationResult } from './lambda-host.ts';

/** How to run the mappings. */
export interface StreamMappingsOptions {
  readonly mappings: readonly DeployedStreamMapping[];
  /** The stream's ARN as DynamoDB Local names it (its region and account are its own). */
  readonly localStreamArn: string;
  readonly invoke: (functionLogicalId: string, event: unknown) => Promise<InvocationResult>;
  /** Credentials of the role the mapping acts with (the function's), registered on the endpoint. */
  readonly credentialsOf: (mapping: DeployedStreamMapping) => FunctionCredentials;
  /** The IAM-checked endpoint all calls go through. */
  readonly endpoint: string;
  /** Queue URL of a queue ARN of the stack. */
  readonly queueUrlOf: (arn: string) => string;
  readonly functionArnOf: (functionLogicalId: string) => string;
  /** Wait before reading again after a read failed (default 50 ms). */
  readonly retryMs?: number;
  /**
   * Wait after a poll that found nothing (default 1 s). It only bounds how late a record
   * nobody announced is read (a test's own write): a write the endpoint forwarded starts a
   * poll at once (`nudge`), and so does `settled()`. Lambda polls a shard about four times a
   * second, and this poller used to read every 50 ms after records came; both cost every
   * test stack signed, IAM-checked calls and DynamoDB Local requests that found nothing.
   */
  readonly idlePollMs?: number;
  readonly onError?: (error: unknown) => void;
}

/** The running mappings. */
export interface StreamMappings {
  /**
   * Resolves once every record written before the call (and every record their processing
   * wrote) has been delivered or dead-lettered: the local stand-in for "wait for the outbox".
   */
  settled(): Promise<void>;
  /** When (performance.now()) a mapping last finished delivering records. */
  readonly lastWorkEnded: number;
  /**
   * Something was written to the table: every reader polls now rather than at the end of its
   * idle wait, or once more if a poll is under way (it may have read before the write).
   */
  nudge(): void;
  stop(): Promise<void>;
}

/** One record as Lambda hands it to the function. */
interface LambdaRecord {
  readonly eventID?: string;
  readonly eventName?: string;
  readonly eventVersion?: string;
  readonly eventSource?: string;
  readonly awsRegion: string;
  readonly dynamodb?: NonNullable<StreamRecord['dynamodb']>;
  readonly eventSourceARN: string;
}

/** Whether `value` matches an event filter pattern (the subset of the syntax we use). */
export function matchesPattern(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((rule) => {
      if (rule === null || typeof rule !== 'object') return value === rule;
      const entries = Object.entries(rule as Record<string, unknown>);
      const [operator, operand] = entries[0] ?? [];
      if (entries.length === 1 && operator === 'prefix' && typeof operand === 'string') {
        return typeof value === 'string' && value.startsWith(operand);
      }
      if (entries.length === 1 && operator === 'exists' && typeof operand === 'boolean') {
        return (value !== undefined) === operand;
      }
      throw new TemplateError(
        `the local cloud cannot match the filter rule ${JSON.stringify(rule)}`,
      );
    });
  }
  if (pattern === null || typeof pattern !== 'object') {
    throw new TemplateError(
      `a filter pattern holds ${JSON.stringify(pattern)} where a list or object belongs`,
    );
  }
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(pattern as Record<string, unknown>).every(([key, inner]) =>
    matchesPattern(inner, (value as Record<string, unknown>)[key]),
  );
}

/** Starts a reader per mapping. */
export function startStreamMappings(options: StreamMappingsOptions): StreamMappings {
  const readers = options.mappings.map((mapping) => new MappingReader(mapping, options));
  for (const reader of readers) reader.start();
  return {
    get lastWorkEnded() {
      return Math.max(0, ...readers.map((reader) => reader.lastWorkEnded));
    },
    settled: async () => {
      for (;;) {
        const since = performance.now();
        await Promise.all(readers.map((reader) => reader.emptyCycleStartedAfter(since)));
        // Work of one mapping writes records for another: quiet only when none worked since.
        if (readers.every((reader) => reader.lastWorkEnded <= since)) return;
      }
    },
    nudge: () => {
      for (const reader of readers) reader.nudge();
    },
    stop: async () => {
      await Promise.all(readers.map((reader) => reader.stop()));
    },
  };
}

/**
 * How long a shard list is used before DescribeStream is asked again. A shard that closes
 * says so in its last GetRecords answer, which asks again at once; this bounds how late a
 * shard that appears otherwise is found.
 */
const SHARDS_FRESH_MS = 5_000;

/**
 * Time between the starts of two reads while records keep coming: Lambda polls a shard about
 * four times a second. Reading again at every announced write instead cost a campaign of
 * 10,000 mails two GetRecords per mail, in the host and in DynamoDB Local.
 */
const BUSY_POLL_MS = 250;

/** One mapping's poller and deliverer. */
class MappingReader {
  lastWorkEnded = 0;
  #stopped = false;
  #loop: Promise<void> | undefined;
  #waiters: { after: number; wake: () => void }[] = [];
  /** Ends the current wait between polls early (a waiter wants a poll now, or stop). */
  #interrupt: (() => void) | undefined;
  /** A write was announced since the current poll started: poll again without waiting. */
  #nudged = false;
  #shards: { ids: string[]; at: number } | undefined;
  readonly #iterators = new Map<string, string | undefined>();
  /** The last sequence number read per shard, to resume after the stream was away. */
  readonly #lastSequence = new Map<string, string>();
  readonly #streams: DynamoDBStreamsClient;
  readonly #sqs: SQSClient;

  constructor(
    readonly mapping: DeployedStreamMapping,
    readonly options: StreamMappingsOptions,
  ) {
    const config = {
      endpoint: options.endpoint,
      region: LOCAL_REGION,
      credentials: options.credentialsOf(mapping),
      maxAttempts: 3,
    };
    this.#streams = new DynamoDBStreamsClient(config);
    this.#sqs = new SQSClient(config);
  }

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#interrupt?.();
    await this.#loop;
    for (const waiter of this.#waiters.splice(0)) waiter.wake();
    this.#streams.destroy();
    this.#sqs.destroy();
  }

  /** Resolves when a poll that started after `since` found nothing to do. */
  emptyCycleStartedAfter(since: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    const cycle = new Promise<void>((wake) => this.#waiters.push({ after: since, wake }));
    this.#interrupt?.();
    return cycle;
  }

  nudge(): void {
    this.#nudged = true;
    this.#interrupt?.();
  }

  /** Waits `ms` unless a waiter, a write or stop() asks for the next poll sooner. */
  async #pause(ms: number, { nudges = true } = {}): Promise<void> {
    if (ms <= 0 || this.#waiters.length > 0 || this.#stopped || (nudges && this.#nudged)) return;
    await new Promise<void>((done) => {
      const timer = setTimeout(done, ms);
      this.#interrupt = () => {
        if (!nudges && this.#nudged && this.#waiters.length === 0 && !this.#stopped) return;
        clearTimeout(timer);
        done();
      };
    });
    this.#interrupt = undefined;
  }

  async #run(): Promise<void> {
    // What the Lambda service does once: find the table's stream.
    await this.#guard(() => this.#streams.send(new ListStreamsCommand({})));
    const idlePoll = this.options.idlePollMs ?? 1_000;
    while (!this.#stopped) {
      const started = performance.now();
      this.#nudged = false;
      // A failed read (DynamoDB Local restarted, an iterator gone stale) starts the shards
      // again after the last record read, as the service's poller resumes from its checkpoint.
      const records = await this.#guard(
        () => this.#poll(),
        () => this.#iterators.clear(),
      );
      const passing = (records ?? []).filter((record) =>
        this.mapping.filters.length === 0
          ? true
          : this.mapping.filters.some((filter) => matchesPattern(filter, record)),
      );
      if (passing.length > 0) {
        for (let i = 0; i < passing.length; i += this.mapping.batchSize) {
          await this.#guard(() => this.#deliver(passing.slice(i, i + this.mapping.batchSize)));
        }
        this.lastWorkEnded = performance.now();
      }
      if ((records ?? []).length === 0) {
        for (const waiter of this.#waiters.filter((w) => w.after <= started)) waiter.wake();
        this.#waiters = this.#waiters.filter((w) => w.after > started);
        await this.#pause(idlePoll);
      } else {
        // Records keep coming while a campaign sends: read again at Lambda's pace, not once per write.
        await this.#pause(BUSY_POLL_MS - (performance.now() - started), { nudges: false });
      }
    }
  }

  /** Runs a step; a failure is reported and the loop goes on, as the service's poller does. */
  async #guard<T>(step: () => Promise<T>, onFailure?: () => void): Promise<T | undefined> {
    try {
      return await step();
    } catch (error) {
      onFailure?.();
      this.#shards = undefined;
      if (!this.#stopped) this.options.onError?.(error);
      if (!this.#stopped) await sleep(this.options.retryMs ?? 50);
      return undefined;
    }
  }

  /** The stream's shards, described again once a second or when one closed. */
  async #shardIds(): Promise<string[]> {
    if (this.#shards && performance.now() - this.#shards.at < SHARDS_FRESH_MS) {
      return this.#shards.ids;
    }
    const described = await this.#streams.send(
      new DescribeStreamCommand({ StreamArn: this.options.localStreamArn }),
    );
    const ids = (described.StreamDescription?.Shards ?? []).map((shard) => shard.ShardId ?? '');
    this.#shards = { ids, at: performance.now() };
    return ids;
  }

  /** New records of every shard, in order. */
  async #poll(): Promise<LambdaRecord[]> {
    const records: LambdaRecord[] = [];
    for (const shardId of await this.#shardIds()) {
      if (!this.#iterators.has(shardId)) {
        const after = this.#lastSequence.get(shardId);
        const { ShardIterator } = await this.#streams.send(
          new GetShardIteratorCommand({
            StreamArn: this.options.localStreamArn,
            ShardId: shardId,
            ...(after
              ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
              : { ShardIteratorType: this.mapping.startingPosition }),
          }),
        );
        this.#iterators.set(shardId, ShardIterator);
      }
      const iterator = this.#iterators.get(shardId);
      if (!iterator) continue;
      const output = await this.#streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      this.#iterators.set(shardId, output.NextShardIterator);
      // A closed shard: its children are in the next description.
      if (!output.NextShardIterator) this.#shards = undefined;
      const last = output.Records?.at(-1)?.dynamodb?.SequenceNumber;
      if (last) this.#lastSequence.set(shardId, last);
      for (const record of output.Records ?? []) {
        records.push({
          ...(record.eventID ? { eventID: record.eventID } : {}),
          ...(record.eventName ? { eventName: record.eventName } : {}),
          ...(record.eventVersion ? { eventVersion: record.eventVersion } : {}),
          ...(record.eventSource ? { eventSource: record.eventSource } : {}),
          awsRegion: LOCAL_REGION,
          ...(record.dynamodb ? { dynamodb: withEpochTime(record.dynamodb) } : {}),
          eventSourceARN: this.mapping.streamArn,
        });
      }
    }
    return records;
  }

  /** Delivers one batch with Lambda's retry, bisect and on-failure behaviour. */
  async #deliver(batch: readonly LambdaRecord[]): Promise<void> {
    const work: (readonly LambdaRecord[])[] = [batch];
    let retries = 0;
    const limit = this.mapping.maximumRetryAttempts;
    while (work.length > 0 && !this.#stopped) {
      const current = work.shift() ?? [];
      const result = await this.options.invoke(this.mapping.functionLogicalId, {
        Records: current,
      });
      let remaining: readonly LambdaRecord[] = [];
      let split = false;
      if (result.ok) {
        const failed = this.mapping.reportBatchItemFailures ? failedIdentifiers(result.result) : [];
        if (failed.length > 0) {
          // Lambda checkpoints before the lowest failed record and retries from there.
          const first = current.findIndex((record) =>
            failed.includes(record.dynamodb?.SequenceNumber ?? ''),
          );
          remaining = first === -1 ? current : current.slice(first);
        }
      } else {
        remaining = current;
        split = this.mapping.bisectOnError && current.length > 1;
      }
      if (remaining.length === 0) continue;
      retries += 1;
      if (limit !== -1 && retries > limit) {
        await this.#deadLetter(remaining, result);
        continue;
      }
      if (split) {
        const half = Math.ceil(remaining.length / 2);
        work.unshift(remaining.slice(0, half), remaining.slice(half));
      } else work.unshift(remaining);
    }
  }

  /** What Lambda sends to an on-failure destination for a stream batch it gave up on. */
  async #deadLetter(records: readonly LambdaRecord[], result: InvocationResult): Promise<void> {
    const destination = this.mapping.onFailureArn;
    if (!destination) return;
    const first = records[0]?.dynamodb;
    const last = records.at(-1)?.dynamodb;
    const message = {
      requestContext: {
        requestId: crypto.randomUUID(),
        functionArn: this.options.functionArnOf(this.mapping.functionLogicalId),
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: this.mapping.maximumRetryAttempts + 1,
      },
      responseContext: {
        statusCode: 200,
        executedVersion: '$LATEST',
        functionError: result.ok ? '' : 'Unhandled',
      },
      version: '1.0',
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId: 'local',
        startSequenceNumber: first?.SequenceNumber,
        endSequenceNumber: last?.SequenceNumber,
        approximateArrivalOfFirstRecord: first?.ApproximateCreationDateTime,
        approximateArrivalOfLastRecord: last?.ApproximateCreationDateTime,
        batchSize: records.length,
        streamArn: this.mapping.streamArn,
      },
    };
    await this.#sqs.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrlOf(destination),
        MessageBody: JSON.stringify(message),
      }),
    );
  }
}

/**
 * A stream record's `dynamodb` part as Lambda hands it over: ApproximateCreationDateTime in
 * epoch seconds (the SDK parsed it to a Date), and the images as DynamoDB sent them.
 */
function withEpochTime(
  dynamodb: NonNullable<StreamRecord['dynamodb']>,
): NonNullable<StreamRecord['dynamodb']> {
  const time = dynamodb.ApproximateCreationDateTime as unknown;
  return {
    ...dynamodb,
    ...(dynamodb.NewImage ? { NewImage: wireImage(dynamodb.NewImage) } : {}),
    ...(dynamodb.OldImage ? { OldImage: wireImage(dynamodb.OldImage) } : {}),
    ApproximateCreationDateTime: (time instanceof Date
      ? Math.floor(time.getTime() / 1000)
      : time) as unknown as Date,
  };
}

type WireValue = Record<string, unknown>;

/**
 * An image as DynamoDB sent it. The SDK's streams client reads an empty map (`{"M": {}}`) as
 * an attribute value with no member (`{}`), which Lambda never hands over and which
 * `unmarshall` refuses; no other attribute value is ever empty, so `{}` is always that map.
 */
export function wireImage<T extends Record<string, unknown>>(image: T): T {
  const value = (attribute: WireValue): WireValue => {
    if (Object.keys(attribute).length === 0) return { M: {} };
    if (attribute.M && typeof attribute.M === 'object')
      return { M: wireImage(attribute.M as Record<string, unknown>) };
    if (Array.isArray(attribute.L)) return { L: attribute.L.map((each) => value(each)) };
    return attribute;
  };
  return Object.fromEntries(
    Object.entries(image).map(([name, attribute]) => [name, value(attribute as WireValue)]),
  ) as T;
}

/** The sequence numbers a partial batch response names. */
function failedIdentifiers(result: unknown): string[] {
  const failures = (result as { batchItemFailures?: { itemIdentifier?: unknown }[] } | null)
    ?.batchItemFailures;
  if (!Array.isArray(failures)) return [];
  return failures.map((failure) => String(failure.itemIdentifier ?? ''));
}
