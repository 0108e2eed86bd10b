/**
 * The local Lambda service's SQS event source mappings, against the local SQS behind the
 * IAM-checked endpoint, with a function stood in for by a recording `invoke`: the event as
 * Lambda shapes it, batches and batching windows, the mapping's maximum concurrency, partial
 * batch responses, redelivery and the dead-letter queue, delays, filters, missing grants, and
 * `settled` / `stop`.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AwsEndpoint,
  type Denial,
  startAwsEndpoint,
} from '../../infra/local/cloud/aws-endpoint.ts';
import type {
  DeployedQueueMapping,
  PolicyDocument,
} from '../../infra/local/cloud/deployed-stack.ts';
import { LOCAL_ACCOUNT } from '../../infra/local/cloud/intrinsics.ts';
import type { InvocationResult } from '../../infra/local/cloud/lambda-host.ts';
import {
  failedMessageIds,
  type QueueMappings,
  type SqsLambdaRecord,
  startQueueMappings,
} from '../../infra/local/cloud/queue-mappings.ts';
import { type SqsLocal, startSqsLocal } from '../../infra/local/stand-ins/sqs-local.ts';

const ROLE = `arn:aws:iam::${LOCAL_ACCOUNT}:role/Worker`;
const arnOf = (name: string) => `arn:aws:sqs:us-east-1:${LOCAL_ACCOUNT}:${name}`;
const POLLER_GRANTS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];

let sqs: SqsLocal;
let endpoint: AwsEndpoint;
let sender: SQSClient;
const denials: Denial[] = [];
const running: QueueMappings[] = [];
let queueCount = 0;

beforeAll(async () => {
  sqs = await startSqsLocal();
  endpoint = await startAwsEndpoint({
    upstreams: { sqs: sqs.endpoint },
    facts: {
      isSecureParameter: () => false,
      queueArn: (url) => arnOf(url.split('/').at(-1) ?? ''),
    },
    onDenied: (denial) => denials.push(denial),
  });
  sender = new SQSClient({
    endpoint: sqs.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((mappings) => mappings.stop()));
  denials.length = 0;
});

afterAll(async () => {
  sender?.destroy();
  await endpoint?.stop();
  await sqs?.stop();
});

/** A fresh queue (and its dead-letter queue when `maxReceiveCount` is given). */
function queue(attributes: Record<string, string> = {}, maxReceiveCount?: number) {
  queueCount += 1;
  const name = `Work${queueCount}`;
  let deadLetters: string | undefined;
  if (maxReceiveCount !== undefined) {
    deadLetters = `${name}Dead`;
    sqs.createQueue(deadLetters);
  }
  const url = sqs.createQueue(name, {
    ...attributes,
    ...(deadLetters
      ? {
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: arnOf(deadLetters),
            maxReceiveCount,
          }),
        }
      : {}),
  });
  return { name, url, arn: arnOf(name), deadLetters };
}

function mappingOf(
  queueArn: string,
  overrides: Partial<DeployedQueueMapping> = {},
): DeployedQueueMapping {
  return {
    logicalId: 'Mapping',
    functionLogicalId: 'Worker',
    queueLogicalId: 'Queue',
    queueArn,
    batchSize: 10,
    maximumBatchingWindowSeconds: 0,
    reportBatchItemFailures: false,
    filters: [],
    enabled: true,
    ...overrides,
  };
}

/** Starts a mapping whose function is `handler`, acting with a role granted `grants`. */
function run(
  mapping: DeployedQueueMapping,
  handler: (event: SQSEvent) => Promise<InvocationResult>,
  grants: readonly string[] = POLLER_GRANTS,
) {
  const events: SQSEvent[] = [];
  const policy: PolicyDocument = {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: [...grants], Resource: mapping.queueArn }],
  };
  const mappings = startQueueMappings({
    mappings: [mapping],
    invoke: async (_fn, event) => {
      events.push(event as SQSEvent);
      return handler(event as SQSEvent);
    },
    credentialsOf: () =>
      endpoint.register({ name: 'Worker (event source mapping)', roleArn: ROLE, policy }),
    endpoint: endpoint.url,
    queueUrlOf: (arn) => `${endpoint.url}/${LOCAL_ACCOUNT}/${arn.split(':').at(-1)}`,
    concurrencyOf: () => 2,
    depthOf: async (arn) => sqs.depth(arn.split(':').at(-1) ?? ''),
  });
  running.push(mappings);
  return { mappings, events };
}

const ok = async (): Promise<InvocationResult> => ({ ok: true, result: null });
const failure: InvocationResult = {
  ok: false,
  error: { errorType: 'Error', errorMessage: 'worker failed', trace: [] },
};

async function send(url: string, bodies: readonly string[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    await sender.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: bodies
          .slice(i, i + 10)
          .map((body, index) => ({ Id: `m${index}`, MessageBody: body })),
      }),
    );
  }
}

const bodiesOf = (events: readonly SQSEvent[]) =>
  events.flatMap((event) => event.Records.map((record) => record.body));

describe('an SQS event source mapping', () => {
  it("hands messages to the function as Lambda's SQS event, then deletes them", async () => {
    const work = queue();
    await sender.send(
      new SendMessageCommand({
        QueueUrl: work.url,
        MessageBody: '{"recipient":1}',
        MessageAttributes: {
          campaign: { DataType: 'String', StringValue: 'c-1' },
          blob: { DataType: 'Binary', BinaryValue: Buffer.from('hi') },
        },
      }),
    );
    const { mappings, events } = run(mappingOf(work.arn), ok);
    await mappings.settled();
    expect(events).toHaveLength(1);
    const record = events[0]?.Records[0];
    if (!record) throw new Error('no record');
    expect(Object.keys(record.attributes)).toEqual([
      'ApproximateReceiveCount',
      'SentTimestamp',
      'SenderId',
      'ApproximateFirstReceiveTimestamp',
    ]);
    expect(record).toMatchObject({
      messageId: expect.any(String),
      receiptHandle: expect.any(String),
      body: '{"recipient":1}',
      attributes: { ApproximateReceiveCount: '1', SenderId: LOCAL_ACCOUNT },
      messageAttributes: {
        campaign: {
          stringValue: 'c-1',
          stringListValues: [],
          binaryListValues: [],
          dataType: 'String',
        },
        blob: {
          binaryValue: 'aGk=',
          stringListValues: [],
          binaryListValues: [],
          dataType: 'Binary',
        },
      },
      md5OfBody: createHash('md5').update('{"recipient":1}').digest('hex'),
      md5OfMessageAttributes: expect.stringMatching(/^[0-9a-f]{32}$/),
      eventSource: 'aws:sqs',
      eventSourceARN: work.arn,
      awsRegion: 'us-east-1',
    });
    expect(Number(record.attributes.SentTimestamp)).toBeLessThanOrEqual(
      Number(record.attributes.ApproximateFirstReceiveTimestamp),
    );
    expect(sqs.depth(work.name)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    expect(denials).toEqual([]);
    // The poller's calls, as the endpoint recorded them, are the three Lambda documents.
    const operations = new Set(
      endpoint.calls
        .filter((call) => call.caller === 'Worker (event source mapping)')
        .map((call) => call.authorizations.map((each) => each.action).join()),
    );
    expect([...operations].sort()).toEqual(POLLER_GRANTS.slice().sort());
  });

  it('gathers up to BatchSize messages within the batching window, and one receive without it', async () => {
    const windowed = queue();
    await send(
      windowed.url,
      Array.from({ length: 25 }, (_, i) => `w${i}`),
    );
    const gathered = run(
      mappingOf(windowed.arn, {
        batchSize: 25,
        maximumBatchingWindowSeconds: 1,
        maximumConcurrency: 1,
      }),
      ok,
    );
    await gathered.mappings.settled();
    expect(gathered.events.map((event) => event.Records.length)).toEqual([25]);

    const plain = queue();
    await send(
      plain.url,
      Array.from({ length: 25 }, (_, i) => `p${i}`),
    );
    const single = run(mappingOf(plain.arn, { batchSize: 25, maximumConcurrency: 1 }), ok);
    await single.mappings.settled();
    expect(single.events.map((event) => event.Records.length)).toEqual([10, 10, 5]);
  });

  it('never runs more invocations at once than its maximum concurrency', async () => {
    const work = queue();
    await send(
      work.url,
      Array.from({ length: 40 }, (_, i) => `m${i}`),
    );
    let now = 0;
    let most = 0;
    const { mappings, events } = run(
      mappingOf(work.arn, { batchSize: 1, maximumConcurrency: 3 }),
      async () => {
        now += 1;
        most = Math.max(most, now);
        await sleep(30);
        now -= 1;
        return { ok: true, result: null };
      },
    );
    await mappings.settled();
    expect(events).toHaveLength(40);
    expect(most).toBe(3);
  });

  it('deletes only what a partial batch response does not name; the rest comes back', async () => {
    const work = queue({ VisibilityTimeout: '1' });
    await send(work.url, ['keep', 'retry']);
    let round = 0;
    const { mappings, events } = run(
      mappingOf(work.arn, { reportBatchItemFailures: true, maximumConcurrency: 2 }),
      async (event) => {
        round += 1;
        const retry = event.Records.filter((record) => record.body === 'retry' && round === 1);
        return {
          ok: true,
          result: {
            batchItemFailures: retry.map((record) => ({ itemIdentifier: record.messageId })),
          },
        };
      },
    );
    await mappings.settled();
    expect(bodiesOf(events)).toEqual(['keep', 'retry', 'retry']);
    expect(events[1]?.Records[0]?.attributes.ApproximateReceiveCount).toBe('2');
  });

  it('takes a malformed partial batch response, or a function error, as the whole batch failed', async () => {
    const work = queue({ VisibilityTimeout: '1' });
    await send(work.url, ['a', 'b']);
    const answers: InvocationResult[] = [
      { ok: true, result: { batchItemFailures: [{ itemIdentifier: '' }] } },
      failure,
    ];
    const { mappings, events } = run(
      mappingOf(work.arn, { reportBatchItemFailures: true, maximumConcurrency: 2 }),
      async () => answers.shift() ?? { ok: true, result: {} },
    );
    await mappings.settled();
    expect(events.map((event) => event.Records.map((record) => record.body).sort())).toEqual([
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(events.map((event) => event.Records[0]?.attributes.ApproximateReceiveCount)).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it("moves a message that keeps failing to the queue's dead-letter queue after maxReceiveCount receives", async () => {
    const work = queue({ VisibilityTimeout: '1' }, 2);
    await send(work.url, ['poison']);
    const { mappings, events } = run(mappingOf(work.arn), async () => failure);
    await mappings.settled();
    expect(bodiesOf(events)).toEqual(['poison', 'poison']);
    expect(sqs.messages(work.deadLetters ?? '')).toEqual(['poison']);
  });

  it('delivers a delayed message once its delay is over, and settled waits for it', async () => {
    const work = queue();
    await sender.send(
      new SendMessageCommand({ QueueUrl: work.url, MessageBody: 'later', DelaySeconds: 1 }),
    );
    const started = Date.now();
    const { mappings, events } = run(mappingOf(work.arn), ok);
    await mappings.settled();
    expect(bodiesOf(events)).toEqual(['later']);
    expect(
      Number(events[0]?.Records[0]?.attributes.ApproximateFirstReceiveTimestamp),
    ).toBeGreaterThanOrEqual(started + 900);
  });

  it('deletes what no filter lets through without invoking the function', async () => {
    const work = queue();
    await send(work.url, ['{"kind":"mail"}', '{"kind":"other"}', 'not json']);
    const { mappings, events } = run(
      mappingOf(work.arn, { filters: [{ body: { kind: ['mail'] } }] }),
      ok,
    );
    await mappings.settled();
    expect(bodiesOf(events)).toEqual(['{"kind":"mail"}']);
    expect(sqs.depth(work.name)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('fails as on AWS when the role lacks a grant the poller needs, naming it', async () => {
    const unreadable = queue();
    await send(unreadable.url, ['x']);
    const blind = run(mappingOf(unreadable.arn), ok, [
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
    ]);
    // The poller's first receive is refused; however long a loaded machine takes to make it.
    while (!denials.some((denial) => denial.action === 'sqs:ReceiveMessage')) await sleep(10);
    expect(blind.events).toEqual([]);
    await blind.mappings.stop();

    denials.length = 0;
    const undeletable = queue({ VisibilityTimeout: '1' }, 1);
    await send(undeletable.url, ['y']);
    const stuck = run(mappingOf(undeletable.arn), ok, ['sqs:ReceiveMessage']);
    await stuck.mappings.settled();
    // Handled, but not deleted: it came back and went to the dead-letter queue.
    expect(bodiesOf(stuck.events)).toEqual(['y']);
    expect(sqs.messages(undeletable.deadLetters ?? '')).toEqual(['y']);
    // The stopped blind poller's last receive may be refused after the reset: only this queue's.
    const onStuck = denials.filter((denial) => denial.resource === undeletable.arn);
    expect([...new Set(onStuck.map((denial) => denial.action))].sort()).toEqual([
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
    ]);
  });

  it('stops at once, mid-invocation, leaving the batch to come back', async () => {
    const work = queue({ VisibilityTimeout: '60' });
    await send(work.url, ['slow']);
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    // The invocation ends only once the test lets it: stop() must not wait for it.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let finished = false;
    const { mappings } = run(mappingOf(work.arn), async () => {
      entered();
      await released;
      finished = true;
      return { ok: true, result: null };
    });
    await inside;
    await mappings.stop();
    expect(finished).toBe(false);
    expect(sqs.depth(work.name)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
    release();
  });
});

describe('SQS calls through the IAM-checked endpoint', () => {
  it('authorizes each call the SDK makes as its single action, and forwards it to the queue', async () => {
    const work = queue();
    const grants = [
      'sqs:SendMessage',
      'sqs:ReceiveMessage',
      'sqs:DeleteMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:PurgeQueue',
    ];
    const clientWith = (actions: readonly string[]) =>
      new SQSClient({
        endpoint: endpoint.url,
        region: 'us-east-1',
        maxAttempts: 1,
        credentials: endpoint.register({
          name: 'Caller',
          roleArn: ROLE,
          policy: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: [...actions], Resource: work.arn }],
          },
        }),
      });
    const client = clientWith(grants);
    const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: work.name }));
    // The URL leads back to the endpoint, not around it.
    expect(QueueUrl).toBe(`${endpoint.url}/${LOCAL_ACCOUNT}/${work.name}`);
    await client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'one' }));
    await client.send(
      new SendMessageBatchCommand({ QueueUrl, Entries: [{ Id: 'a', MessageBody: 'two' }] }),
    );
    const received = await client.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 2, WaitTimeSeconds: 1 }),
    );
    const [first, second] = received.Messages ?? [];
    await client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: first?.ReceiptHandle,
        VisibilityTimeout: 60,
      }),
    );
    await client.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl,
        Entries: [{ Id: 'b', ReceiptHandle: second?.ReceiptHandle, VisibilityTimeout: 60 }],
      }),
    );
    await client.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first?.ReceiptHandle }));
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: [{ Id: 'c', ReceiptHandle: second?.ReceiptHandle }],
      }),
    );
    await client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'three' }));
    await client.send(new PurgeQueueCommand({ QueueUrl }));
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    expect(Attributes?.ApproximateNumberOfMessages).toBe('0');
    expect(denials).toEqual([]);
    client.destroy();

    const narrow = clientWith(grants.filter((grant) => grant !== 'sqs:ChangeMessageVisibility'));
    await expect(
      narrow.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl,
          Entries: [{ Id: 'd', ReceiptHandle: 'x', VisibilityTimeout: 1 }],
        }),
      ),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(denials.map((denial) => denial.action)).toEqual(['sqs:ChangeMessageVisibility']);
    narrow.destroy();
  });

  it("records which of the SDK's attempts each call was: a retry after a throttle is the second", async () => {
    const work = queue();
    const client = new SQSClient({
      endpoint: endpoint.url,
      region: 'us-east-1',
      maxAttempts: 2,
      credentials: endpoint.register({
        name: 'Retrying',
        roleArn: ROLE,
        policy: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: work.arn }],
        },
      }),
    });
    endpoint.setFault('sqs', { kind: 'throttle', count: 1 });
    try {
      await client.send(
        new SendMessageCommand({
          QueueUrl: `${endpoint.url}/${LOCAL_ACCOUNT}/${work.name}`,
          MessageBody: 'once',
        }),
      );
    } finally {
      endpoint.setFault('sqs', undefined);
      client.destroy();
    }
    const made = endpoint.calls.filter((call) => call.caller === 'Retrying');
    expect(made.map((call) => [call.operation, call.attempt])).toEqual([
      ['SendMessage', 1],
      ['SendMessage', 2],
    ]);
    expect(sqs.messages(work.name)).toEqual(['once']);
  });
});

describe("Lambda's reading of a partial batch response", () => {
  const records = ['m1', 'm2'].map((messageId) => ({ messageId }) as SqsLambdaRecord);
  const read = (result: unknown, report = true) =>
    [...failedMessageIds(records, { ok: true, result }, report)].sort();

  it('counts none failed for an empty or absent response or list', () => {
    for (const result of [
      null,
      undefined,
      {},
      { batchItemFailures: [] },
      { batchItemFailures: null },
    ]) {
      expect(read(result)).toEqual([]);
    }
  });

  it('counts the named items failed', () => {
    expect(read({ batchItemFailures: [{ itemIdentifier: 'm2' }] })).toEqual(['m2']);
  });

  it('counts the whole batch failed for a malformed response', () => {
    for (const result of [
      'ok',
      [],
      { batchItemFailures: 'm1' },
      { batchItemFailures: [{ itemIdentifier: '' }] },
      { batchItemFailures: [{ itemIdentifier: null }] },
      { batchItemFailures: [{ id: 'm1' }] },
      { batchItemFailures: [{ itemIdentifier: 'unknown' }] },
    ]) {
      expect(read(result)).toEqual(['m1', 'm2']);
    }
  });

  it('ignores the response without ReportBatchItemFailures, and fails all on an error', () => {
    expect(read({ batchItemFailures: [{ itemIdentifier: 'm1' }] }, false)).toEqual([]);
    expect([...failedMessageIds(records, failure, true)].sort()).toEqual(['m1', 'm2']);
  });
});
