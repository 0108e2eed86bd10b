/**
 * The local cloud running a small stack of its own (fixtures/queue-stack.ts, synthesized with
 * the project's NewsletterFunction, bundles included): queues created from the template, an
 * SQS event source mapping driving a worker through the IAM-checked endpoint, redelivery and
 * the dead-letter queue, delayed follow-ups sent by the function itself, a worker killed
 * mid-invocation, and scheduled rules with and without the Lambda permission they need.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Denial } from '../../infra/local/cloud/aws-endpoint.ts';
import { DeployedStack } from '../../infra/local/cloud/deployed-stack.ts';
import { LOCAL_ACCOUNT } from '../../infra/local/cloud/intrinsics.ts';
import type { LambdaHost } from '../../infra/local/cloud/lambda-host.ts';
import { type LocalCloud, startLocalCloud } from '../../infra/local/cloud/local-cloud.ts';
import { type SqsLocal, startSqsLocal } from '../../infra/local/stand-ins/sqs-local.ts';
import { PROJECT_ROOT } from '../../infra/local/synthesize.ts';
import { FIXTURE, synthQueueStack } from './fixtures/queue-stack.ts';
import type { Task } from './fixtures/queue-worker.ts';

/** One line the worker logged. */
interface WorkerLine {
  readonly id: string;
  readonly receiveCount: number;
  readonly batch: number;
  readonly invocation: string;
  readonly phase: 'start' | 'done';
  readonly at: number;
}

let scratch: string;
let sqs: SqsLocal;
let cloud: LocalCloud;
let operator: SQSClient;
const lines: { fn: string; line: string }[] = [];
const denials: Denial[] = [];
const errors: unknown[] = [];

const logicalIdOf = (prefix: string): string => {
  const id = cloud.stack.functions().find((fn) => fn.logicalId.startsWith(prefix))?.logicalId;
  if (!id) throw new Error(`no function ${prefix}`);
  return id;
};
const queueOf = (prefix: string) => {
  const found = [...cloud.queues.entries()].find(([id]) => id.startsWith(prefix));
  if (!found) throw new Error(`no queue ${prefix}`);
  return found[1];
};
const worker = (): LambdaHost => {
  const host = cloud.functions.get(logicalIdOf('Worker'));
  if (!host) throw new Error('no worker');
  return host;
};
const workerLines = (): WorkerLine[] =>
  lines
    .filter((entry) => entry.fn.startsWith('Worker') && entry.line.startsWith('{"id"'))
    .map((entry) => JSON.parse(entry.line) as WorkerLine);
const done = (id: string) =>
  workerLines().filter((line) => line.id === id && line.phase === 'done');

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'queue-cloud-'));
  const cdkOut = synthQueueStack(join(scratch, 'cdk.out'));
  sqs = await startSqsLocal();
  // A queue kept from an earlier run (DATA_DIR), with other attributes and a message.
  const kept = new DeployedStack(cdkOut).queues().find((queue) => queue.name.includes('Work'));
  sqs.createQueue(kept?.name ?? '', { VisibilityTimeout: '30' });
  const early = new SQSClient({
    endpoint: sqs.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
  });
  await early.send(
    new SendMessageCommand({
      QueueUrl: `${sqs.endpoint}/${LOCAL_ACCOUNT}/${kept?.name}`,
      MessageBody: JSON.stringify({ id: 'kept' }),
    }),
  );
  early.destroy();
  // This stack has no table, parameters or mail: nothing listens for them.
  const nowhere = 'http://127.0.0.1:9';
  cloud = await startLocalCloud({
    cdkOut,
    code: 'bundle',
    projectRoot: PROJECT_ROOT,
    upstreams: { sqs: sqs.endpoint, dynamodb: nowhere, ssm: nowhere, ses: nowhere },
    isSecureParameter: () => false,
    apiPort: 0,
    onLog: (line, fn) => lines.push({ fn: fn.logicalId, line }),
    onDenied: (denial) => denials.push(denial),
    onStreamError: (error) => errors.push(error),
    asyncRetryWaitsMs: [10, 10],
    runSchedules: false,
  });
  // An operator (or another function) queueing work: straight to SQS.
  operator = new SQSClient({
    endpoint: sqs.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
  });
}, 120_000);

afterAll(async () => {
  operator?.destroy();
  await cloud?.stop();
  await sqs?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

beforeEach(() => {
  denials.length = 0;
});

async function queueTasks(tasks: readonly Task[]): Promise<void> {
  const { url } = queueOf('Work');
  const direct = `${sqs.endpoint}/${LOCAL_ACCOUNT}/${url.split('/').at(-1)}`;
  for (let i = 0; i < tasks.length; i += 10) {
    await operator.send(
      new SendMessageBatchCommand({
        QueueUrl: direct,
        Entries: tasks.slice(i, i + 10).map((task, index) => ({
          Id: `t${index}`,
          MessageBody: JSON.stringify(task),
        })),
      }),
    );
  }
}

describe('queues from the template', () => {
  it('works off what a kept queue held, once the template has updated its attributes', async () => {
    await cloud.settled();
    expect(done('kept').length).toBeGreaterThanOrEqual(1);
  });

  it('creates each queue with the attributes CloudFormation would, in the local account', async () => {
    const work = queueOf('Work');
    const deadLetters = queueOf('DeadLetters');
    const { Attributes } = await operator.send(
      new GetQueueAttributesCommand({
        QueueUrl: `${sqs.endpoint}/${LOCAL_ACCOUNT}/${work.name}`,
        AttributeNames: ['All'],
      }),
    );
    expect(Attributes).toMatchObject({
      QueueArn: work.arn,
      VisibilityTimeout: String(FIXTURE.visibilityTimeoutSeconds),
      SqsManagedSseEnabled: 'true',
    });
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: deadLetters.arn,
      maxReceiveCount: FIXTURE.maxReceiveCount,
    });
    expect(work.url).toBe(`${cloud.endpoint.url}/${LOCAL_ACCOUNT}/${work.name}`);
  });
});

describe('an SQS event source mapping of the template', () => {
  it('works the queue off through the mapping, in batches of at most its batch size', async () => {
    const tasks = Array.from({ length: 30 }, (_, i) => ({ id: `plain-${i}` }));
    await queueTasks(tasks);
    await cloud.settled();
    // At least once, as SQS delivers: on a loaded machine a batch can outlive its visibility
    // timeout before its invocation starts (a cold environment), and come back.
    for (const task of tasks) expect(done(task.id).length, task.id).toBeGreaterThanOrEqual(1);
    const batches = workerLines().filter((line) => line.id.startsWith('plain-'));
    expect(Math.max(...batches.map((line) => line.batch))).toBeLessThanOrEqual(FIXTURE.batchSize);
    expect(denials).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('runs at most MaximumConcurrency invocations at once', async () => {
    await queueTasks(Array.from({ length: 12 }, (_, i) => ({ id: `slow-${i}`, sleepMs: 100 })));
    await cloud.settled();
    const slow = workerLines().filter((line) => line.id.startsWith('slow-'));
    expect(slow.filter((line) => line.phase === 'done')).toHaveLength(12);
    // Each invocation from its first start to its last end; then the most of them at once.
    const spans = new Map<string, { from: number; to: number }>();
    for (const line of slow) {
      const span = spans.get(line.invocation) ?? { from: line.at, to: line.at };
      spans.set(line.invocation, {
        from: Math.min(span.from, line.at),
        to: Math.max(span.to, line.at),
      });
    }
    const running = [...spans.values()].map(
      (span) =>
        [...spans.values()].filter((other) => other.from <= span.from && other.to > span.from)
          .length,
    );
    expect(Math.max(...running)).toBe(FIXTURE.maximumConcurrency);
  });

  it('takes back only the failed items of a batch, and dead-letters a message that keeps failing', async () => {
    await queueTasks([{ id: 'fine' }, { id: 'poison', fail: 'item' }]);
    await cloud.settled();
    expect(done('fine').length).toBeGreaterThanOrEqual(1);
    const poison = workerLines().filter((line) => line.id === 'poison');
    expect(poison.map((line) => line.receiveCount)).toEqual([1, 2]);
    expect(sqs.messages(queueOf('DeadLetters').name).map((body) => JSON.parse(body).id)).toEqual([
      'poison',
    ]);
  });

  it('delivers the follow-up a function queued with a delay, once the delay is over', async () => {
    await queueTasks([{ id: 'throttled', requeueDelaySeconds: 1 }]);
    await cloud.settled();
    const [first] = done('throttled');
    const [later] = done('throttled-later');
    expect(first && later).toBeTruthy();
    expect((later?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(900);
    // The function's SendMessage passed the queue's TLS-only policy, as over HTTPS on AWS.
    expect(denials).toEqual([]);
  });

  it('redelivers the batch of a worker killed mid-invocation, as a function error', async () => {
    await queueTasks([{ id: 'doomed', sleepMs: 1_500 }]);
    // Killed once its handler has started, not merely once an environment took the batch: on a
    // loaded machine that comes well before the handler's first line.
    while (!workerLines().some((line) => line.id === 'doomed' && line.phase === 'start'))
      await sleep(10);
    expect(worker().killBusyEnvironment()).toBe(true);
    await cloud.settled();
    const doomed = workerLines().filter((line) => line.id === 'doomed');
    expect(doomed.map((line) => [line.phase, line.receiveCount])).toEqual([
      ['start', 1],
      ['start', 2],
      ['done', 2],
    ]);
  });

  it("fails a killed invocation with Lambda's Runtime.ExitError", async () => {
    const invocation = cloud.invoke(logicalIdOf('Worker'), {
      Records: [{ body: JSON.stringify({ id: 'direct', sleepMs: 1_000 }), attributes: {} }],
    });
    while (worker().busyEnvironments === 0) await sleep(10);
    expect(worker().killBusyEnvironment()).toBe(true);
    const result = await invocation;
    expect(result).toMatchObject({
      ok: false,
      error: {
        errorType: 'Runtime.ExitError',
        errorMessage: expect.stringMatching(
          /^RequestId: \S+ Error: Runtime exited with error: signal: killed$/,
        ),
      },
    });
    expect(worker().killBusyEnvironment()).toBe(false);
  });
});

describe('scheduled rules of the template', () => {
  it('invokes the target with the scheduled event when the rule fires', async () => {
    const [outcome] = await cloud.fireRule(
      cloud.stack.scheduleRules().find((rule) => rule.logicalId.startsWith('Tick'))?.logicalId ??
        '',
    );
    expect(outcome).toMatchObject({ denied: false, attempts: 1, result: { ok: true } });
    const ticked = lines
      .filter((entry) => entry.fn.startsWith('Ticker') && entry.line.startsWith('{"ticked"'))
      .map((entry) => JSON.parse(entry.line).ticked);
    expect(ticked).toEqual([
      expect.objectContaining({
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        resources: [
          expect.stringMatching(/^arn:aws:events:us-east-1:123456789012:rule\/QueueFixture-Tick/),
        ],
      }),
    ]);
  });

  it('refuses to invoke a target without the Lambda permission, and reports it', async () => {
    const [outcome] = await cloud.fireRule('Unpermitted');
    expect(outcome).toMatchObject({ denied: true, attempts: 0 });
    expect(denials.map((denial) => [denial.caller, denial.action])).toEqual([
      ['events.amazonaws.com', 'lambda:InvokeFunction'],
    ]);
  });
});
