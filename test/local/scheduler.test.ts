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
import { type LocalScheduler, startLocalScheduler } from '../../infra/local/cloud/scheduler.ts';
import { EventBridgeCampaignScheduler } from '../../shared/adapters/scheduler/eventbridge-campaign-scheduler.ts';
import { DependencyError } from '../../shared/domain/errors.ts';

const ACCOUNT = '123456789012';
const STARTER_ARN = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:Newsletter-Starter`;
const OTHER_ARN = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:Newsletter-Other`;
const ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/Newsletter-SchedulerRole`;
const GROUP = 'Newsletter-ScheduleGroup';

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
    });
  return { scheduler: running, clock, invocations, denials, adapter };
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
      Target: { Arn: STARTER_ARN, RoleArn: ROLE_ARN, Input: JSON.stringify(INPUT) },
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
    expect(await local.fireDue()).toMatchObject([{ denied: true, attempts: 0 }]);
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
      expect(denials).toHaveLength(1);
      await local.stop();
      client?.destroy();
    }
  });
});
