/**
 * The local EventBridge Scheduler (infra/local/cloud/scheduler.ts), driven through the
 * service's own adapter (the SDK's Scheduler client): a one-time schedule fires at its time on a
 * clock the test moves, invokes its target once with its input, and deletes itself; the firing
 * is allowed only by the schedule role's policy and trust, evaluated by the IAM evaluator.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterEach, describe, expect, it } from 'vitest';
import type { Denial } from '../../infra/local/cloud/aws-endpoint.ts';
import type { DeployedFunction, DeployedRole } from '../../infra/local/cloud/deployed-stack.ts';
import {
  type DeadLetterEvent,
  type LocalScheduler,
  startLocalScheduler,
} from '../../infra/local/cloud/scheduler.ts';
import { EventBridgeCampaignScheduler } from '../../shared/adapters/scheduler/eventbridge-campaign-scheduler.ts';
import { DependencyError } from '../../shared/domain/errors.ts';

const ACCOUNT = '123456789012';
const STARTER_ARN = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:Newsletter-Starter`;
const OTHER_ARN = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:Newsletter-Other`;
const ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/Newsletter-SchedulerRole`;
const GROUP = 'Newsletter-ScheduleGroup';
const DEAD_LETTERS_ARN = `arn:aws:sqs:us-east-1:${ACCOUNT}:Newsletter-ScheduleDeadLetters`;

const fn = (logicalId: string, functionArn: string) =>
  ({ logicalId, functionArn, functionName: functionArn.split(':').at(-1) }) as DeployedFunction;

const role = (overrides: Partial<DeployedRole> = {}): DeployedRole => ({
  logicalId: 'SchedulerRole',
  roleArn: ROLE_ARN,
  trustedServices: ['scheduler.amazonaws.com'],
  policy: {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'InvokeStarter',
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: STARTER_ARN,
      },
      {
        Sid: 'DeadLetters',
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: DEAD_LETTERS_ARN,
      },
    ],
  },
  ...overrides,
});

let running: LocalScheduler | undefined;
let client: SchedulerClient | undefined;
afterEach(async () => {
  client?.destroy();
  await running?.stop();
  running = undefined;
});

async function scheduler(options: { role?: DeployedRole; file?: string } = {}) {
  const clock = { now: new Date('2026-11-22T10:00:00Z') };
  const invocations: { fn: string; event: unknown }[] = [];
  const denials: Denial[] = [];
  const deadLetters: DeadLetterEvent[] = [];
  running = await startLocalScheduler({
    groups: [GROUP],
    functions: [fn('Starter', STARTER_ARN), fn('Other', OTHER_ARN)],
    roleOf: (arn) => (arn === ROLE_ARN ? (options.role ?? role()) : undefined),
    invoke: async (logicalId, event) => {
      invocations.push({ fn: logicalId, event });
      return { ok: true, result: null };
    },
    retryWaitsMs: [1, 1],
    runSchedules: false,
    now: () => clock.now,
    onDenied: (denial) => denials.push(denial),
    sendToDeadLetters: async (event) => {
      deadLetters.push(event);
    },
    ...(options.file ? { file: options.file } : {}),
  });
  client = new SchedulerClient({
    endpoint: running.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
  });
  const adapter = (target = STARTER_ARN, roleArn = ROLE_ARN, group = GROUP) =>
    new EventBridgeCampaignScheduler(client as SchedulerClient, {
      group,
      functionArn: target,
      roleArn,
      deadLetterArn: DEAD_LETTERS_ARN,
    });
  return { scheduler: running, clock, invocations, denials, deadLetters, adapter };
}

const INPUT = { newsletter_id: 7, at: '2026-11-23T09:00:00Z', api_root: 'http://x/api' };
const AT = new Date(INPUT.at);

describe('[campaign.schedule] the local Scheduler fires a one-time schedule at its time', () => {
  it('holds it as created, fires it once when the clock reaches its time, then deletes it', async () => {
    // Arrange
    const { scheduler: local, clock, invocations, denials, adapter } = await scheduler();
    await adapter().create('newsletter-7-20261123T090000Z', AT, INPUT);
    const stored = await client?.send(
      new GetScheduleCommand({ Name: 'newsletter-7-20261123T090000Z', GroupName: GROUP }),
    );
    expect(stored).toMatchObject({
      ScheduleExpression: 'at(2026-11-23T09:00:00)',
      ScheduleExpressionTimezone: 'UTC',
      ActionAfterCompletion: 'DELETE',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: STARTER_ARN,
        RoleArn: ROLE_ARN,
        Input: JSON.stringify(INPUT),
        RetryPolicy: { MaximumRetryAttempts: 3 },
        DeadLetterConfig: { Arn: DEAD_LETTERS_ARN },
      },
    });
    // Act: a second early, nothing; at the time, it fires.
    clock.now = new Date('2026-11-23T08:59:59Z');
    expect(await local.fireDue()).toEqual([]);
    clock.now = new Date('2026-11-23T09:00:00Z');
    const fired = await local.fireDue();
    // Assert
    expect(fired).toMatchObject([{ denied: false, attempts: 1 }]);
    expect(invocations).toEqual([{ fn: 'Starter', event: INPUT }]);
    expect(local.schedules()).toEqual([]);
    clock.now = new Date('2026-11-23T10:00:00Z');
    expect(await local.fireDue()).toEqual([]);
    expect(invocations).toHaveLength(1);
    expect(denials).toEqual([]);
    expect(local.calls).toMatchObject([
      {
        caller: `scheduler (${ROLE_ARN})`,
        allowed: true,
        authorizations: [{ action: 'lambda:InvokeFunction', resource: STARTER_ARN, allowed: true }],
      },
    ]);
  });

  it('deletes a schedule before it fires; deleting one that is gone is fine', async () => {
    const { scheduler: local, clock, invocations, adapter } = await scheduler();
    await adapter().create('s1', AT, INPUT);
    await adapter().delete('s1');
    await adapter().delete('s1');
    clock.now = new Date('2026-11-24T00:00:00Z');
    expect(await local.fireDue()).toEqual([]);
    expect(invocations).toEqual([]);
  });

  it('refuses what the Scheduler refuses: an unknown group, a name taken, a target not of the stack', async () => {
    const { adapter } = await scheduler();
    const failure = (work: Promise<unknown>) =>
      work.then(
        () => 'created',
        (error: unknown) =>
          error instanceof DependencyError ? (error.cause as Error).name : String(error),
      );
    expect(await failure(adapter(STARTER_ARN, ROLE_ARN, 'default').create('s', AT, INPUT))).toBe(
      'ResourceNotFoundException',
    );
    await adapter().create('s', AT, INPUT);
    expect(await failure(adapter().create('s', AT, INPUT))).toBe('ConflictException');
    expect(await failure(adapter(`${STARTER_ARN}-gone`).create('t', AT, INPUT))).toBe(
      'ValidationException',
    );
  });
});

describe('[campaign.schedule-late] schedules outlive a restart of npm start', () => {
  it('keeps them in the data folder: one whose time passed while down fires at the next start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'scheduler-'));
    try {
      const file = join(dir, 'schedules.json');
      const first = await scheduler({ file });
      await first.adapter().create('s', AT, INPUT);
      await first.scheduler.stop();
      client?.destroy();
      const second = await scheduler({ file });
      second.clock.now = new Date('2026-11-23T12:00:00Z');
      expect(await second.scheduler.fireDue()).toMatchObject([{ denied: false, attempts: 1 }]);
      expect(second.invocations).toEqual([{ fn: 'Starter', event: INPUT }]);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('[campaign.schedule] a firing is allowed by the schedule role alone, as IAM decides', () => {
  it('refuses a target the role may not invoke: nothing is invoked, the denial is reported', async () => {
    const { scheduler: local, clock, invocations, denials, adapter } = await scheduler();
    await adapter(OTHER_ARN).create('other', AT, INPUT);
    clock.now = AT;
    expect(await local.fireDue()).toMatchObject([
      { denied: true, attempts: 0, deadLettered: true },
    ]);
    expect(invocations).toEqual([]);
    expect(denials.map((denial) => denial.message)).toEqual([
      `${ROLE_ARN} is not authorized to perform: lambda:InvokeFunction on resource: ${OTHER_ARN} because no identity-based policy allows the lambda:InvokeFunction action`,
    ]);
    expect(local.schedules()).toEqual([]);
  });

  it('refuses a role that does not trust scheduler.amazonaws.com, or has no grant', async () => {
    for (const denied of [
      role({ trustedServices: ['lambda.amazonaws.com'] }),
      role({ policy: { Version: '2012-10-17', Statement: [] } }),
    ]) {
      const {
        scheduler: local,
        clock,
        invocations,
        denials,
        adapter,
      } = await scheduler({
        role: denied,
      });
      await adapter().create('s', AT, INPUT);
      clock.now = AT;
      await local.fireDue();
      expect(invocations).toEqual([]);
      // Without a trust nothing more is tried; without grants the dead letters are refused too.
      expect(denials.map((denial) => denial.action)).toEqual(
        denied.trustedServices.includes('scheduler.amazonaws.com')
          ? ['lambda:InvokeFunction', 'sqs:SendMessage']
          : ['lambda:InvokeFunction'],
      );
      await local.stop();
      client?.destroy();
    }
  });
});

describe('[campaign.schedule-dead-letters] a firing the Scheduler gives up on goes to the dead letters', () => {
  it('tries as the RetryPolicy says, then sends the input to the queue with the schedule role', async () => {
    // Arrange: the role may send to the queue but not invoke this target.
    const {
      scheduler: local,
      clock,
      invocations,
      denials,
      deadLetters,
      adapter,
    } = await scheduler();
    await adapter(OTHER_ARN).create('newsletter-7-20261123T090000Z', AT, INPUT);
    clock.now = AT;
    // Act
    const fired = await local.fireDue();
    // Assert: 1 + 3 deliveries refused, one denial reported, the input dead-lettered.
    expect(fired).toMatchObject([{ denied: true, deadLettered: true }]);
    expect(invocations).toEqual([]);
    expect(denials.map((denial) => denial.action)).toEqual(['lambda:InvokeFunction']);
    expect(local.calls.map((call) => [call.operation, call.attempt, call.allowed])).toEqual([
      ['Invoke', 1, false],
      ['Invoke', 2, false],
      ['Invoke', 3, false],
      ['Invoke', 4, false],
      ['SendMessage', 1, true],
    ]);
    expect(deadLetters).toEqual([
      {
        queueArn: DEAD_LETTERS_ARN,
        roleArn: ROLE_ARN,
        body: JSON.stringify(INPUT),
        attributes: {
          ERROR_CODE: 'AccessDeniedException',
          ERROR_MESSAGE: expect.stringContaining('lambda:InvokeFunction'),
          EXHAUSTED_RETRY_CONDITION: 'MaximumRetryAttempts',
          RETRY_ATTEMPTS: '3',
          SCHEDULE_ARN: expect.stringContaining('schedule/Newsletter-ScheduleGroup/newsletter-7-'),
          TARGET_ARN: OTHER_ARN,
        },
      },
    ]);
    expect(local.schedules()).toEqual([]);
  });

  it('reports a role without sqs:SendMessage on the queue as a denial, and sends nothing', async () => {
    const invokeOnly = role({
      policy: {
        Version: '2012-10-17',
        Statement: [
          { Sid: 'Other', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: STARTER_ARN },
        ],
      },
    });
    const {
      scheduler: local,
      clock,
      denials,
      deadLetters,
      adapter,
    } = await scheduler({
      role: invokeOnly,
    });
    await adapter(OTHER_ARN).create('s', AT, INPUT);
    clock.now = AT;
    expect(await local.fireDue()).toMatchObject([{ denied: true, deadLettered: false }]);
    expect(deadLetters).toEqual([]);
    expect(denials.map((denial) => [denial.action, denial.resource])).toEqual([
      ['lambda:InvokeFunction', OTHER_ARN],
      ['sqs:SendMessage', DEAD_LETTERS_ARN],
    ]);
    expect(denials[1]?.message).toBe(
      `${ROLE_ARN} is not authorized to perform: sqs:SendMessage on resource: ${DEAD_LETTERS_ARN} because no identity-based policy allows the sqs:SendMessage action`,
    );
  });

  it('sends nothing to the dead letters for a firing it delivered, and refuses a queue that is no ARN', async () => {
    const { scheduler: local, clock, deadLetters, adapter } = await scheduler();
    await adapter().create('s', AT, INPUT);
    clock.now = AT;
    expect(await local.fireDue()).toEqual([
      expect.not.objectContaining({ deadLettered: expect.anything() }),
    ]);
    expect(deadLetters).toEqual([]);
    const bad = new EventBridgeCampaignScheduler(client as SchedulerClient, {
      group: GROUP,
      functionArn: STARTER_ARN,
      roleArn: ROLE_ARN,
      deadLetterArn: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
    });
    const refused = await bad.create('t', AT, INPUT).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DependencyError);
    expect(((refused as DependencyError).cause as Error).name).toBe('ValidationException');
  });
});
