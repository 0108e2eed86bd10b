/**
 * Scheduling an issue end to end under the local stack: `newsletters schedule` creates a
 * one-time schedule at the local EventBridge Scheduler with the operator's credentials; when the
 * Scheduler's clock (the test's) reaches its time it invokes the synthesized campaign starter
 * with the stack's scheduler role (IAM-checked), the send goes through the engine, and the
 * schedule deletes itself. A schedule that fires late does not send; `unschedule` takes an issue
 * back. Time is moved, never waited for.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Denial } from '../../infra/local/cloud/aws-endpoint.ts';
import type { DeployedFunction } from '../../infra/local/cloud/deployed-stack.ts';
import { EventBridgeCampaignScheduler } from '../../shared/adapters/scheduler/eventbridge-campaign-scheduler.ts';
import { scheduleTimeText } from '../../shared/domain/campaign/campaign-schedule.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { scheduleNewsletter } from '../../shared/operations/campaign/schedule-campaign.ts';
import { NO_METRICS } from '../../shared/operations/dependencies.ts';
import { RecordingLogger, testSettings } from '../support/fixtures.ts';
import { callsFailingWithout, unusedGrants } from '../support/grant-coverage.ts';
import {
  addressesOf,
  type CampaignOperator,
  campaignOperator,
} from './support/campaign-operator.ts';
import { type LocalService, startLocalService } from './support/local-service.ts';

vi.setConfig({ testTimeout: 120_000 });

/** The Scheduler's clock: it fires what is due when the test says the time has come. */
const clock = { now: new Date() };
let service: LocalService;
let operator: CampaignOperator;

beforeAll(async () => {
  service = await startLocalService({ schedulerNow: () => clock.now, runSchedules: false });
  operator = await campaignOperator(service);
  await operator.add('early@example.net', [4]);
  await operator.add('bird@example.net', [4]);
});

afterAll(async () => {
  await operator?.close();
  await service?.stop();
});

const scheduler = () => {
  const local = service.stack.cloud.scheduler;
  if (!local) throw new Error('the stack has no Scheduler');
  return local;
};

/** A whole second an hour from now, as `--at` takes it. */
const inAnHour = (): string => scheduleTimeText(new Date(Date.now() + 3_600_000));

describe('[campaign.schedule] schedule → the schedule fires → the issue is sent', () => {
  it('sends at the scheduled time through the starter, and the schedule deletes itself', async () => {
    // Arrange
    const subject = 'Scheduled: the morning issue';
    const id = await operator.createIssue(subject, [4]);
    const at = inAnHour();
    // Act
    const out = await operator.cliOk('newsletters', 'schedule', String(id), '--at', at);
    const listed = await operator.cliOk('newsletters', 'list');
    const schedules = scheduler().schedules();
    clock.now = new Date(at);
    const fired = await scheduler().fireDue();
    await service.stack.settled();
    // Assert
    expect(out).toContain(`Scheduled newsletter ${id} for ${at}`);
    expect(listed).toMatch(new RegExp(`^${id}\\s+scheduled ${at}\\s`, 'm'));
    expect(schedules).toMatchObject([
      { at: new Date(at), deleteAfterCompletion: true, expression: `at(${at.slice(0, 19)})` },
    ]);
    expect(fired).toMatchObject([{ denied: false, attempts: 1, result: { ok: true } }]);
    expect(scheduler().schedules()).toEqual([]);
    expect(await operator.campaigns.getCampaign(id)).toMatchObject({ status: 'sent', sent: 2 });
    expect(addressesOf(await operator.mailsOf(subject))).toEqual([
      'bird@example.net',
      'early@example.net',
    ]);
    expect(service.stack.denials).toEqual([]);
  });
});

describe('[campaign.schedule] unschedule', () => {
  it('takes the issue back to draft and deletes its schedule: nothing fires, nothing is sent', async () => {
    const subject = 'Scheduled: taken back';
    const id = await operator.createIssue(subject, [4]);
    const at = inAnHour();
    await operator.cliOk('newsletters', 'schedule', String(id), '--at', at);
    const out = await operator.cliOk('newsletters', 'unschedule', String(id));
    clock.now = new Date(Date.parse(at) + 60_000);
    expect(await scheduler().fireDue()).toEqual([]);
    await service.stack.settled();
    expect(out).toContain(`Unscheduled newsletter ${id}: it is a draft again.`);
    expect(await operator.campaigns.getCampaign(id)).toMatchObject({ status: 'draft', run: 0 });
    expect(await operator.mailsOf(subject)).toEqual([]);
    const again = await operator.cli('newsletters', 'unschedule', String(id));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('only a scheduled newsletter can be unscheduled');
  });
});

describe('[campaign.schedule-late] a schedule that fires late', () => {
  it('does not send: the issue stays scheduled, MISSED in the listing, and SchedulesMissed is published', async () => {
    // Arrange: the operator scheduled it for an hour ago (their clock was two hours behind),
    // so when it fires now it is an hour late by the starter's clock.
    const subject = 'Scheduled: fired too late';
    const id = await operator.createIssue(subject, [4]);
    const target = service.stack.endpoints.scheduler;
    if (!target) throw new Error('npm start published no scheduler');
    const client = new SchedulerClient({
      endpoint: target.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
    });
    const at = scheduleTimeText(new Date(Date.now() - 3_600_000));
    const scheduled = await scheduleNewsletter(
      {
        campaigns: operator.campaigns,
        scheduler: new EventBridgeCampaignScheduler(client, {
          group: target.group,
          functionArn: target.target,
          roleArn: target.role,
          deadLetterArn: target.dead_letters,
        }),
        queue: {
          plan: () => Promise.reject(new Error('scheduling queues nothing')),
          send: () => Promise.reject(new Error('scheduling queues nothing')),
        },
        settings: async () => testSettings({ public_base_url: '' }),
        now: () => new Date(Date.now() - 2 * 3_600_000),
        log: new RecordingLogger(),
        metrics: NO_METRICS,
      },
      { id, at },
      { apiRoot: service.apiRoot },
    );
    client.destroy();
    if (isNewsletterError(scheduled)) throw new Error(scheduled.message);
    const from = service.logLines.length;
    // Act
    clock.now = new Date();
    const fired = await scheduler().fireDue();
    await service.stack.settled();
    // Assert
    expect(fired).toMatchObject([{ denied: false, result: { ok: true } }]);
    const issue = await operator.campaigns.getCampaign(id);
    expect(issue).toMatchObject({ status: 'scheduled', scheduled_at: at, run: 0 });
    expect(issue?.schedule_missed_at).toEqual(expect.any(String));
    expect(await operator.mailsOf(subject)).toEqual([]);
    const listed = await operator.cliOk('newsletters', 'list');
    expect(listed).toMatch(new RegExp(`^${id}\\s+scheduled ${at} \\(MISSED: fired \\S+\\)`, 'm'));
    const metrics = service.logLines
      .slice(from)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => typeof line._aws === 'object' && 'SchedulesMissed' in line);
    // Once for the service (the alarm's metric), and once more under the issue's dimension.
    expect(
      metrics.filter((line) => !('newsletter' in line)).map((line) => line.SchedulesMissed),
    ).toEqual([1]);
    expect(scheduler().schedules()).toEqual([]);
    // The operator decides: send it now.
    await operator.cliOk('newsletters', 'send', String(id));
    await service.stack.settled();
    expect(await operator.campaigns.getCampaign(id)).toMatchObject({ status: 'sent', sent: 2 });
  });
});

describe('[campaign.schedule-dead-letters] a firing the Scheduler cannot deliver', () => {
  it('is tried again, then its input goes to the schedules’ dead-letter queue with the scheduler role', async () => {
    // Arrange: a schedule whose target the scheduler role may not invoke (the sweeper).
    const target = service.stack.endpoints.scheduler;
    if (!target) throw new Error('npm start published no scheduler');
    const sweeper = service.stack.cloud.stack
      .functions()
      .find((fn) => fn.logicalId.startsWith('CampaignsCampaignSweeper'));
    if (!sweeper) throw new Error('no sweeper in the stack');
    const client = new SchedulerClient({
      endpoint: target.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
    });
    const at = inAnHour();
    const input = { newsletter_id: 99, at };
    await new EventBridgeCampaignScheduler(client, {
      group: target.group,
      functionArn: sweeper.functionArn,
      roleArn: target.role,
      deadLetterArn: target.dead_letters,
    }).create('misdirected', new Date(at), input);
    client.destroy();
    const before = scheduler().calls.length;
    // Act
    clock.now = new Date(at);
    const fired = await scheduler().fireDue();
    // Assert: four refused deliveries (RetryPolicy 3), one denial, the input in the queue.
    expect(fired).toMatchObject([{ denied: true, deadLettered: true }]);
    expect(
      scheduler()
        .calls.slice(before)
        .map((call) => [call.operation, call.allowed]),
    ).toEqual([
      ['Invoke', false],
      ['Invoke', false],
      ['Invoke', false],
      ['Invoke', false],
      ['SendMessage', true],
    ]);
    const queueName = target.dead_letters.split(':').at(-1) ?? '';
    expect(service.stack.sqs.messages(queueName)).toEqual([JSON.stringify(input)]);
    // The one refusal this test causes on purpose, taken off the list that fails the file.
    const denials = service.stack.denials as Denial[];
    expect(denials.map((denial) => [denial.action, denial.resource])).toEqual([
      ['lambda:InvokeFunction', sweeper.functionArn],
    ]);
    denials.splice(0);
  });
});

describe('[campaign.schedule-dead-letters] the scheduler role', () => {
  it('has two grants, each needed by a call the Scheduler made, and no more', async () => {
    const roleArn = service.stack.endpoints.scheduler?.role ?? '';
    const schedulerRole = service.stack.cloud.stack.role(roleArn);
    if (!schedulerRole) throw new Error('no scheduler role in the stack');
    // The firings of this file: allowed invocations, refused ones, one dead letter.
    const calls = scheduler().calls;
    expect(calls.some((call) => call.allowed && call.operation === 'Invoke')).toBe(true);
    const asCaller = { roleArn, policy: schedulerRole.policy } as DeployedFunction;
    expect(await unusedGrants(asCaller, schedulerRole.policy, calls)).toEqual([]);
    const without = await callsFailingWithout(asCaller, schedulerRole.policy, calls);
    expect(without.map(({ grant, failing }) => [grant.action, failing.length > 0])).toEqual([
      ['lambda:InvokeFunction', true],
      ['sqs:SendMessage', true],
    ]);
    expect(schedulerRole.trustedServices).toEqual(['scheduler.amazonaws.com']);
  });
});
