/**
 * The Lambda service's side of an SQS event source mapping, for the template's mappings. As
 * on AWS it acts with the function's role through the IAM-checked endpoint: GetQueueAttributes
 * when the mapping starts, ReceiveMessage to long-poll, DeleteMessageBatch (sqs:DeleteMessage)
 * for what the function handled, so a role without those three grants fails here as there.
 *
 * Per mapping, as many pollers as invocations may run at once (ScalingConfig's
 * MaximumConcurrency, else the function's environments): each long-polls (20 s, up to 10
 * messages a call), gathers up to BatchSize messages for at most MaximumBatchingWindowInSeconds,
 * invokes the function synchronously with the batch shaped as Lambda shapes it, and deletes
 * what succeeded: the whole batch, or, with ReportBatchItemFailures, all but the items the
 * response names (a response that names an unknown or empty item fails the whole batch). A
 * function error (a thrown error, a timeout, a killed environment) deletes nothing: the
 * messages come back when their visibility timeout ends, and the queue's redrive policy moves
 * them to its dead-letter queue after maxReceiveCount receives (fauxqs does that).
 */
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { QueueDepth } from '../stand-ins/sqs-local.ts';
import type { DeployedQueueMapping } from './deployed-stack.ts';
import { LOCAL_REGION } from './intrinsics.ts';
import type { FunctionCredentials, InvocationResult } from './lambda-host.ts';
import { matchesPattern } from './stream-mappings.ts';

/** How to run the mappings. */
export interface QueueMappingsOptions {
  readonly mappings: readonly DeployedQueueMapping[];
  readonly invoke: (functionLogicalId: string, event: unknown) => Promise<InvocationResult>;
  /** Credentials of the role the mapping acts with (the function's), registered on the endpoint. */
  readonly credentialsOf: (mapping: DeployedQueueMapping) => FunctionCredentials;
  /** The IAM-checked endpoint all calls go through. */
  readonly endpoint: string;
  /** Queue URL (at the endpoint) of a queue ARN of the stack. */
  readonly queueUrlOf: (queueArn: string) => string;
  /** Invocations a mapping without MaximumConcurrency may run at once (the function's bound). */
  readonly concurrencyOf: (functionLogicalId: string) => number;
  /** What a queue holds now, straight from SQS (for `settled`, not a call of the mapping). */
  readonly depthOf: (queueArn: string) => Promise<QueueDepth | undefined>;
  /** A failure of a poller's own call (a refused or failed receive or delete); it goes on. */
  readonly onError?: (error: unknown) => void;
  /** Long-poll wait of each ReceiveMessage (default 20 s, as Lambda's pollers). */
  readonly waitTimeSeconds?: number;
}

/** The running mappings. */
export interface QueueMappings {
  /**
   * Resolves once the mapped queues hold nothing (visible, in flight or delayed) and no
   * invocation of a mapping runs. Delayed messages and ones waiting out a visibility timeout
   * are waited for: they are work not yet done.
   */
  settled(): Promise<void>;
  /** When (performance.now()) the last batch of any mapping was handled. */
  readonly lastWorkEnded: number;
  stop(): Promise<void>;
}

/** One SQS message as Lambda hands it to the function (the shape @types/aws-lambda describes). */
export type SqsLambdaRecord = SQSRecord;

/** A message as ReceiveMessage returned it, shaped as Lambda's SQS record. */
export function lambdaRecordOf(message: Message, queueArn: string): SqsLambdaRecord {
  const received = message.Attributes ?? {};
  // Lambda lists these four first, in this order; any others (FIFO's, a trace header) follow.
  const first = [
    'ApproximateReceiveCount',
    'SentTimestamp',
    'SenderId',
    'ApproximateFirstReceiveTimestamp',
  ];
  const attributes: Record<string, string> = {};
  for (const name of first) {
    const value = received[name as keyof typeof received];
    if (value !== undefined) attributes[name] = value;
  }
  for (const [name, value] of Object.entries(received)) {
    if (!first.includes(name) && value !== undefined) attributes[name] = value;
  }
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined
        ? {}
        : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((item) =>
        Buffer.from(item).toString('base64'),
      ),
      dataType: value.DataType ?? 'String',
    };
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    // SQS answers every attribute Lambda lists (the poller asks for All).
    attributes: attributes as unknown as SQSRecordAttributes,
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes
      ? { md5OfMessageAttributes: message.MD5OfMessageAttributes }
      : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: LOCAL_REGION,
  };
}

/**
 * The messages of a batch that failed, as Lambda reads a partial batch response: all of them
 * when the invocation failed; none for an empty or absent `batchItemFailures`; the named ones;
 * and all of them when the response is malformed (not an object, `batchItemFailures` not a
 * list, an item without an identifier, or one naming no message of the batch).
 */
export function failedMessageIds(
  records: readonly SqsLambdaRecord[],
  result: InvocationResult,
  reportBatchItemFailures: boolean,
): ReadonlySet<string> {
  const all = new Set(records.map((record) => record.messageId));
  if (!result.ok) return all;
  if (!reportBatchItemFailures) return new Set();
  const response = result.result;
  if (response === null || response === undefined) return new Set();
  if (typeof response !== 'object' || Array.isArray(response)) return all;
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return new Set();
  if (!Array.isArray(failures)) return all;
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !all.has(id)) return all;
    failed.add(id);
  }
  return failed;
}

/** Starts the pollers of every enabled mapping. */
export function startQueueMappings(options: QueueMappingsOptions): QueueMappings {
  const pollers = options.mappings
    .filter((mapping) => mapping.enabled)
    .map((mapping) => new QueuePoller(mapping, options));
  for (const poller of pollers) poller.start();
  let stopped = false;
  return {
    get lastWorkEnded() {
      return Math.max(0, ...pollers.map((poller) => poller.lastWorkEnded));
    },
    settled: async () => {
      while (!stopped) {
        const activity = pollers.reduce((sum, poller) => sum + poller.activity, 0);
        if (pollers.every((poller) => poller.idle)) {
          const depths = await Promise.all(
            pollers.map((poller) => options.depthOf(poller.mapping.queueArn)),
          );
          const empty = depths.every(
            (depth) => !depth || depth.visible + depth.inFlight + depth.delayed === 0,
          );
          const still = pollers.reduce((sum, poller) => sum + poller.activity, 0);
          if (empty && still === activity && pollers.every((poller) => poller.idle)) return;
        }
        await sleep(20);
      }
    },
    stop: async () => {
      stopped = true;
      await Promise.all(pollers.map((poller) => poller.stop()));
    },
  };
}

/** Lambda's most records per receive; a larger batch takes several receives. */
const MAX_PER_RECEIVE = 10;

/** One mapping's pollers. */
class QueuePoller {
  lastWorkEnded = 0;
  /** Counts every batch taken and handled; `settled` compares it across its checks. */
  activity = 0;
  #holding = 0;
  #stopped = false;
  readonly #abort = new AbortController();
  readonly #stopping: Promise<void>;
  #wakeStopping: () => void = () => undefined;
  #workers: Promise<void>[] = [];
  readonly #sqs: SQSClient;
  readonly #queueUrl: string;
  readonly #concurrency: number;
  readonly #agent: Agent;

  constructor(
    readonly mapping: DeployedQueueMapping,
    readonly options: QueueMappingsOptions,
  ) {
    this.#concurrency =
      mapping.maximumConcurrency ?? options.concurrencyOf(mapping.functionLogicalId);
    // One socket per poller's long poll, and a few for the deletes.
    this.#agent = new Agent({ keepAlive: true, maxSockets: this.#concurrency + 4 });
    this.#sqs = new SQSClient({
      endpoint: options.endpoint,
      region: LOCAL_REGION,
      credentials: options.credentialsOf(mapping),
      maxAttempts: 3,
      requestHandler: { httpAgent: this.#agent },
    });
    this.#queueUrl = options.queueUrlOf(mapping.queueArn);
    this.#stopping = new Promise((wake) => {
      this.#wakeStopping = wake;
    });
  }

  /**
   * No batch is being handled. A batch being gathered shows in the queue's depth (its
   * messages are in flight), which `settled` reads as well.
   */
  get idle(): boolean {
    return this.#holding === 0;
  }

  start(): void {
    this.#workers = [this.#run()];
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    this.#wakeStopping();
    await Promise.all(this.#workers);
    this.#sqs.destroy();
    this.#agent.destroy();
  }

  async #run(): Promise<void> {
    // What Lambda does when the mapping is created: look at the queue with the role.
    await this.#guard(() =>
      this.#sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: this.#queueUrl,
          AttributeNames: ['QueueArn', 'VisibilityTimeout', 'RedrivePolicy'],
        }),
        { abortSignal: this.#abort.signal },
      ),
    );
    const workers = Array.from({ length: this.#concurrency }, () => this.#work());
    await Promise.all(workers);
  }

  async #work(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      const messages = await this.#gather();
      if (messages === undefined) {
        failures += 1;
        // A refused or failed receive: back off as the service's poller does.
        await this.#pause(Math.min(30_000, 500 * 2 ** failures));
        continue;
      }
      failures = 0;
      if (messages.length === 0) continue;
      this.#holding += 1;
      this.activity += 1;
      try {
        await this.#handle(messages);
      } finally {
        this.activity += 1;
        this.#holding -= 1;
        this.lastWorkEnded = performance.now();
      }
    }
  }

  /** Waits, or less when the mapping stops (no timer outlives it). */
  async #pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.#abort.signal }).catch(() => undefined);
  }

  /** One receive; undefined when it failed (not when it found nothing). */
  async #receive(max: number, waitSeconds: number): Promise<Message[] | undefined> {
    return this.#guard(async () => {
      const { Messages = [] } = await this.#sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.#queueUrl,
          MaxNumberOfMessages: max,
          WaitTimeSeconds: waitSeconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: this.#abort.signal },
      );
      return Messages;
    });
  }

  /** A batch: one long poll, then more receives while the batching window lasts. */
  async #gather(): Promise<Message[] | undefined> {
    const { batchSize, maximumBatchingWindowSeconds } = this.mapping;
    const wait = this.options.waitTimeSeconds ?? 20;
    const first = await this.#receive(Math.min(MAX_PER_RECEIVE, batchSize), wait);
    if (!first || first.length === 0 || maximumBatchingWindowSeconds === 0) return first;
    const batch = [...first];
    const deadline = performance.now() + maximumBatchingWindowSeconds * 1000;
    while (batch.length < batchSize && !this.#stopped) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) break;
      const seconds = Math.min(20, Math.floor(remaining / 1000));
      const more = await this.#receive(
        Math.min(MAX_PER_RECEIVE, batchSize - batch.length),
        seconds,
      );
      if (!more) break;
      batch.push(...more);
      if (more.length === 0 && seconds === 0) {
        await this.#pause(Math.min(remaining, 50));
      }
    }
    return batch;
  }

  /** Invokes the function with the batch and deletes what it handled. */
  async #handle(messages: readonly Message[]): Promise<void> {
    const records = messages.map((message) => lambdaRecordOf(message, this.mapping.queueArn));
    const { filters } = this.mapping;
    const passing =
      filters.length === 0
        ? records
        : records.filter((record) =>
            filters.some((filter) => matchesPattern(filter, forFiltering(record))),
          );
    // Lambda deletes a message no filter lets through, without invoking the function.
    const filteredOut = records.filter((record) => !passing.includes(record));
    let done: readonly SqsLambdaRecord[] = filteredOut;
    if (passing.length > 0) {
      const result = await Promise.race([
        this.options.invoke(this.mapping.functionLogicalId, { Records: passing }).catch(
          (thrown: unknown): InvocationResult => ({
            ok: false,
            error: { errorType: 'InvokeFailed', errorMessage: String(thrown), trace: [] },
          }),
        ),
        this.#stopping.then(() => undefined),
      ]);
      // Stopped mid-invocation: nothing is deleted, as when the poller's host goes away.
      if (result === undefined || this.#stopped) return;
      const failed = failedMessageIds(passing, result, this.mapping.reportBatchItemFailures);
      done = [...filteredOut, ...passing.filter((record) => !failed.has(record.messageId))];
    }
    for (let i = 0; i < done.length; i += MAX_PER_RECEIVE) {
      const chunk = done.slice(i, i + MAX_PER_RECEIVE);
      await this.#guard(() =>
        this.#sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: this.#queueUrl,
            Entries: chunk.map((record, index) => ({
              Id: String(index),
              ReceiptHandle: record.receiptHandle,
            })),
          }),
        ),
      );
    }
  }

  /** Runs a call; a failure is reported (unless stopping) and undefined returned. */
  async #guard<T>(step: () => Promise<T>): Promise<T | undefined> {
    try {
      return await step();
    } catch (error) {
      if (!this.#stopped) this.options.onError?.(error);
      return undefined;
    }
  }
}

/** The record as a filter sees it: a JSON body is matched by its fields, as Lambda does. */
function forFiltering(record: SqsLambdaRecord): unknown {
  try {
    const body: unknown = JSON.parse(record.body);
    return typeof body === 'object' && body !== null ? { ...record, body } : record;
  } catch {
    return record;
  }
}
