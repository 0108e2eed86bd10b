/**
 * The campaign engine as the synthesized template has it (infra/cdk/constructs/campaign-engine.ts):
 * the planner's FIFO queue and the workers' queue, each with a dead-letter queue, their event
 * source mappings (the workers' bounded by the number of workers), the sweeper's schedule, and
 * each function's grants. The oracles are the template and AWS's documented limits.
 */
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { sizeWorkers } from '../../infra/cdk/worker-sizing.ts';
import { RATE_KEPT_ALARM_PERCENT } from '../../shared/domain/campaign/rate-kept.ts';
import { ENV } from '../../shared/runtime/environment.ts';
import { buildApp, resourcesOfType, type TemplateResource } from './build-app.ts';

const { template } = buildApp();
const resources = template.toJSON().Resources as Record<string, TemplateResource>;

interface Statement {
  readonly Sid?: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
/** A resource of a type by the start of its logical id (CDK appends a hash). */
function named(prefix: string, type = ''): [string, TemplateResource] {
  const wanted =
    type ||
    (/Campaign(Planner|Sender|Sweeper|Starter)$/.test(prefix)
      ? 'AWS::Lambda::Function'
      : /Sweep$/.test(prefix)
        ? 'AWS::Events::Rule'
        : 'AWS::SQS::Queue');
  const found = Object.entries(resources).filter(
    ([id, resource]) => id.startsWith(prefix) && resource.Type === wanted,
  );
  expect(
    found.map(([id]) => id),
    prefix,
  ).toHaveLength(1);
  return found[0] as [string, TemplateResource];
}

/** Every statement of a role: its inline policies and the policies attached to it. */
function statementsOfRole(roleId: string): Statement[] {
  const inline = (
    (resources[roleId]?.Properties.Policies ?? []) as {
      PolicyDocument: { Statement: Statement[] };
    }[]
  ).flatMap((policy) => policy.PolicyDocument.Statement);
  const attached = [...resourcesOfType(template, 'AWS::IAM::Policy').values()]
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap(
      (policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
    );
  return [...inline, ...attached];
}

function statementsOfFunction(prefix: string): Statement[] {
  const [, fn] = named(prefix);
  return statementsOfRole((fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]);
}

const environmentOf = (prefix: string): Record<string, unknown> =>
  (named(prefix)[1].Properties.Environment as { Variables: Record<string, unknown> }).Variables;

/** The one resource of another app's template whose logical id starts with `prefix`. */
function resourceOf(
  built: ReturnType<typeof buildApp>,
  pick: (id: string, resource: TemplateResource) => boolean,
): TemplateResource {
  const all = built.template.toJSON().Resources as Record<string, TemplateResource>;
  const found = Object.entries(all).filter(([id, resource]) => pick(id, resource));
  if (found.length !== 1) throw new Error(`${found.length} resources match`);
  return (found[0] as [string, TemplateResource])[1];
}

const [plansId, plans] = named('CampaignsPlans');
const [sendsId, sends] = named('CampaignsSends');
const [planDeadId, planDead] = named('CampaignsPlanDeadLetters');
const [sendDeadId] = named('CampaignsSendDeadLetters');

describe('[campaign.plan] the planner’s queue keeps the pages of a campaign in order', () => {
  it('is FIFO with deduplication ids from the sender, and a FIFO dead-letter queue after 5 receives', () => {
    expect(plans.Properties).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [planDeadId, 'Arn'] },
        maxReceiveCount: 5,
      },
    });
    expect(planDead.Properties.FifoQueue).toBe(true);
  });

  it('feeds the planner one message at a time, reporting failed ones', () => {
    const mappings = [...resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').values()];
    const planner = mappings.find((mapping) =>
      JSON.stringify(mapping.Properties.EventSourceArn).includes(plansId),
    );
    expect(planner?.Properties).toMatchObject({
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(JSON.stringify(planner?.Properties.FunctionName)).toContain('CampaignsCampaignPlanner');
  });
});

describe('[campaign.claim] the workers’ queue hides a message until its invocation is over', () => {
  it('keeps a message hidden twice the function’s timeout, and dead-letters it after 5 receives', () => {
    const [, sender] = named('CampaignsCampaignSender');
    expect(sends.Properties.VisibilityTimeout).toBe(2 * Number(sender.Properties.Timeout));
    expect(sends.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [sendDeadId, 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(sends.Properties.FifoQueue).toBeUndefined();
  });
});

describe('[campaign.pacing] the workers’ mapping runs at most the configured number of workers', () => {
  it('bounds the sender’s concurrency and tells the sender the same number', () => {
    for (const workers of [2, 5]) {
      const built = buildApp({ campaignWorkers: String(workers) });
      const all = built.template.toJSON().Resources as Record<string, TemplateResource>;
      const mapping = Object.values(all).find(
        (resource) =>
          resource.Type === 'AWS::Lambda::EventSourceMapping' &&
          JSON.stringify(resource.Properties.EventSourceArn).includes('CampaignsSends'),
      );
      expect(mapping?.Properties).toMatchObject({
        BatchSize: 1,
        ScalingConfig: { MaximumConcurrency: workers },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      const sender = Object.entries(all).find(
        ([id, resource]) =>
          id.startsWith('CampaignsCampaignSender') && resource.Type === 'AWS::Lambda::Function',
      )?.[1];
      if (!sender) throw new Error('no campaign sender');
      expect(
        (sender.Properties.Environment as { Variables: Record<string, unknown> }).Variables[
          ENV.campaignWorkers
        ],
      ).toBe(String(workers));
    }
  });
});

describe('[campaign.workers-sized] the workers and their memory are sized for the highest rate', () => {
  /** The workers' mapping's concurrency, and the memory of the sender and the planner. */
  const sizedIn = (built: ReturnType<typeof buildApp>) => {
    const mapping = resourceOf(
      built,
      (_, resource) =>
        resource.Type === 'AWS::Lambda::EventSourceMapping' &&
        JSON.stringify(resource.Properties.EventSourceArn).includes('CampaignsSends'),
    );
    const memoryOf = (prefix: string) =>
      resourceOf(
        built,
        (id, resource) => id.startsWith(prefix) && resource.Type === 'AWS::Lambda::Function',
      ).Properties.MemorySize;
    return {
      workers: (mapping.Properties.ScalingConfig as { MaximumConcurrency: number })
        .MaximumConcurrency,
      sender: memoryOf('CampaignsCampaignSender'),
      planner: memoryOf('CampaignsCampaignPlanner'),
    };
  };
  const warnings = (built: ReturnType<typeof buildApp>) =>
    Annotations.fromStack(built.stack)
      .findWarning('*', Match.anyValue())
      .map((warning) => String(warning.entry.data));

  it('derives them from campaignMaxRate, 2 workers of 256 MB by default, without a warning', () => {
    expect(sizedIn(buildApp())).toEqual({ workers: 2, sender: 256, planner: 256 });
    const built = buildApp({ campaignMaxRate: '500' });
    const sizing = sizeWorkers(500);
    expect(built.stack.campaignWorkers).toEqual(sizing);
    expect(sizedIn(built)).toEqual({
      workers: sizing.workers,
      sender: sizing.memoryMb,
      planner: 256,
    });
    const sender = resourceOf(
      built,
      (id, resource) =>
        id.startsWith('CampaignsCampaignSender') && resource.Type === 'AWS::Lambda::Function',
    );
    expect(
      (sender.Properties.Environment as { Variables: Record<string, unknown> }).Variables[
        ENV.campaignWorkers
      ],
    ).toBe(String(sizing.workers));
    expect(warnings(built)).toEqual([]);
  });

  it('keeps the workers or the memory given, and derives the other', () => {
    const memory = buildApp({ campaignMaxRate: '500', campaignWorkerMemory: '1024' });
    expect(sizedIn(memory)).toEqual({
      workers: sizeWorkers(500, { memoryMb: 1024 }).workers,
      sender: 1024,
      planner: 256,
    });
    expect(sizedIn(buildApp({ campaignMaxRate: '100', campaignWorkers: '6' }))).toMatchObject({
      workers: 6,
      sender: 256,
    });
  });

  it('warns at synth when the settings given cannot reach the rate', () => {
    const built = buildApp({ campaignMaxRate: '500', campaignWorkers: '4' });
    expect(sizedIn(built).workers).toBe(4);
    expect(warnings(built)).toEqual([
      expect.stringMatching(
        /^campaignMaxRate 500\/s is out of reach: campaignWorkers=4 .*\[ack: newsletter:campaign-rate-unreachable\]$/,
      ),
    ]);
  });
});

describe('[campaign.sweep] the sweeper runs every minute, invoked by its rule only', () => {
  it('has a rate(1 minute) rule targeting it, and a permission for exactly that rule', () => {
    const [ruleId, rule] = named('CampaignsSweep');
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(JSON.stringify(rule.Properties.Targets)).toContain('CampaignsCampaignSweeper');
    // Other rules (the engagement eraser's) invoke other functions.
    const permissions = [...resourcesOfType(template, 'AWS::Lambda::Permission').values()].filter(
      (permission) =>
        permission.Properties.Principal === 'events.amazonaws.com' &&
        JSON.stringify(permission.Properties.FunctionName).includes('CampaignSweeper'),
    );
    expect(permissions).toHaveLength(1);
    expect(permissions[0]?.Properties.SourceArn).toEqual({ 'Fn::GetAtt': [ruleId, 'Arn'] });
  });
});

describe('least privilege of the campaign functions', () => {
  const queueSends = (prefix: string): string[] =>
    statementsOfFunction(prefix)
      .filter((statement) => list(statement.Action).includes('sqs:SendMessage'))
      .flatMap((statement) => list(statement.Resource).map((resource) => JSON.stringify(resource)))
      .sort();

  it('queues work only where each function must', () => {
    const arn = (id: string) => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] });
    expect(queueSends('CampaignsCampaignPlanner')).toEqual([arn(plansId), arn(sendsId)].sort());
    // The sender puts work back, and asks the planner for its campaign's next chunks.
    expect(queueSends('CampaignsCampaignSender')).toEqual([arn(plansId), arn(sendsId)].sort());
    expect(queueSends('CampaignsCampaignSweeper')).toEqual([arn(plansId)]);
    expect(queueSends('CampaignsCampaignStarter')).toEqual([arn(plansId)]);
  });

  it('lets the planner and the sweeper read the SES quota and nothing more of SES, and only the sender send mail', () => {
    const actions = (prefix: string) => statementsOfFunction(prefix).flatMap((s) => list(s.Action));
    const ses = (prefix: string) => actions(prefix).filter((action) => action.startsWith('ses:'));
    expect(ses('CampaignsCampaignPlanner')).toEqual(['ses:GetSendQuota']);
    // [campaign.quota] The sweeper asks whether a campaign paused on the quota may go on.
    expect(ses('CampaignsCampaignSweeper')).toEqual(['ses:GetSendQuota']);
    expect(actions('CampaignsCampaignSender')).toContain('ses:SendRawEmail');
    expect(actions('CampaignsCampaignSender')).not.toContain('ses:GetSendQuota');
    expect(ses('CampaignsCampaignStarter')).toEqual([]);
  });

  it('reads only what each function needs from its environment', () => {
    expect(environmentOf('CampaignsCampaignSender')).toHaveProperty(ENV.configurationSet);
    expect(environmentOf('CampaignsCampaignPlanner')).not.toHaveProperty(ENV.configurationSet);
    expect(environmentOf('CampaignsCampaignSweeper')).not.toHaveProperty(ENV.campaignSends);
    expect(environmentOf('CampaignsCampaignPlanner')).not.toHaveProperty(ENV.campaignWorkers);
    for (const prefix of [
      'CampaignsCampaignPlanner',
      'CampaignsCampaignSender',
      'CampaignsCampaignSweeper',
    ])
      expect(environmentOf(prefix)[ENV.campaignPlans]).toEqual({ Ref: plansId });
  });
});

describe('[ops.alarms] campaign alarms', () => {
  it('alarms on stalled and auto-paused campaigns and on both dead-letter queues', () => {
    const alarms = [...resourcesOfType(template, 'AWS::CloudWatch::Alarm').values()];
    const metricNames = alarms.map((alarm) => alarm.Properties.MetricName);
    expect(metricNames).toContain('StalledCampaigns');
    expect(metricNames).toContain('CampaignsAutoPaused');
    const deadLetterAlarms = alarms.filter((alarm) =>
      [planDeadId, sendDeadId].some((id) => JSON.stringify(alarm.Properties).includes(id)),
    );
    expect(deadLetterAlarms).toHaveLength(2);
  });

  it('[campaign.rate-kept] alarms when a campaign keeps under 80% of its share for 5 minutes, the worst campaign judged, a throttle or not', () => {
    const [, behind] = named('OperationsCampaignBehindRate', 'AWS::CloudWatch::Alarm');
    // The sweeper's figure, as it publishes it: one a minute per campaign, five minutes in a
    // row below 80 for the campaign that keeps the least.
    expect(behind.Properties).toMatchObject({
      Namespace: 'Newsletter',
      MetricName: 'CampaignRateKept',
      Dimensions: [{ Name: 'service', Value: 'newsletter' }],
      Period: 60,
      Statistic: 'Minimum',
      Threshold: RATE_KEPT_ALARM_PERCENT,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 5,
      DatapointsToAlarm: 5,
      TreatMissingData: 'notBreaching',
    });
    // Nothing silences it: no composite with a throttle alarm.
    expect(resourcesOfType(template, 'AWS::CloudWatch::CompositeAlarm').size).toBe(0);
    const throttleSilencers = [
      ...resourcesOfType(template, 'AWS::CloudWatch::Alarm').values(),
    ].filter((alarm) => alarm.Properties.MetricName === 'CampaignThrottles');
    expect(throttleSilencers).toEqual([]);
  });

  it('shows the campaigns on the dashboard', () => {
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'))).toContain(
      'CampaignMailsSent',
    );
  });

  it('prints the planner queue for the CLI', () => {
    template.hasOutput('CampaignQueue', { Value: { Ref: plansId } });
  });
});

describe('[campaign.schedule] scheduled sends: a schedule group, and a role that may invoke only the starter', () => {
  const [starterId] = named('CampaignsCampaignStarter');
  const [roleId, role] = named('CampaignsSchedulerRole', 'AWS::IAM::Role');

  it('has one schedule group, printed for the CLI with the starter and the role', () => {
    const [groupId] = named('CampaignsScheduleGroup', 'AWS::Scheduler::ScheduleGroup');
    template.hasOutput('CampaignScheduleGroup', { Value: { Ref: groupId } });
    template.hasOutput('CampaignScheduleTarget', { Value: { 'Fn::GetAtt': [starterId, 'Arn'] } });
    template.hasOutput('CampaignScheduleRole', { Value: { 'Fn::GetAtt': [roleId, 'Arn'] } });
  });

  it('lets EventBridge Scheduler of this account assume the role, and nobody else', () => {
    const trust = role.Properties.AssumeRolePolicyDocument as { Statement: unknown[] };
    expect(trust.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      },
    ]);
  });

  it('grants the role lambda:InvokeFunction on the starter, sqs:SendMessage on its dead letters, nothing else', () => {
    const [deadId] = named('CampaignsScheduleDeadLetters');
    const statements = statementsOfRole(roleId);
    expect(statements).toEqual([
      {
        Sid: 'InvokeStarter',
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: { 'Fn::GetAtt': [starterId, 'Arn'] },
      },
      {
        Sid: 'DeadLetters',
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [deadId, 'Arn'] },
      },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('gives the starter no scheduler, SES or workers’ queue grant: it only starts a send', () => {
    const actions = statementsOfFunction('CampaignsCampaignStarter').flatMap((s) => list(s.Action));
    expect(actions.filter((action) => /^(scheduler|ses|iam):/.test(action))).toEqual([]);
    expect(environmentOf('CampaignsCampaignStarter')).not.toHaveProperty(ENV.campaignSends);
    // Nothing but the role invokes it: no resource policy for a service principal.
    const permissions = [...resourcesOfType(template, 'AWS::Lambda::Permission').values()].filter(
      (permission) => JSON.stringify(permission.Properties.FunctionName).includes(starterId),
    );
    expect(permissions).toEqual([]);
  });
});

describe('[campaign.schedule-late] a schedule that fired late raises an alarm', () => {
  it('alarms on SchedulesMissed from the first one', () => {
    const alarms = [...resourcesOfType(template, 'AWS::CloudWatch::Alarm').values()].filter(
      (alarm) => alarm.Properties.MetricName === 'SchedulesMissed',
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]?.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });
});

describe('[campaign.schedule-dead-letters] scheduled sends that did not start go to a queue with an alarm', () => {
  const [deadId, dead] = named('CampaignsScheduleDeadLetters');

  it('is a standard queue (the Scheduler takes no FIFO one), encrypted, kept 14 days, printed for the CLI', () => {
    expect(dead.Properties.FifoQueue).toBeUndefined();
    expect(dead.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
    template.hasOutput('CampaignScheduleDeadLetters', {
      Value: { 'Fn::GetAtt': [deadId, 'Arn'] },
    });
  });

  it('alarms from the first message, and on any issue overdue (OverdueSchedules)', () => {
    const alarms = [...resourcesOfType(template, 'AWS::CloudWatch::Alarm').values()];
    const onQueue = alarms.filter((alarm) => JSON.stringify(alarm.Properties).includes(deadId));
    expect(onQueue.map((alarm) => alarm.Properties)).toEqual([
      expect.objectContaining({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      }),
    ]);
    const overdue = alarms.filter((alarm) => alarm.Properties.MetricName === 'OverdueSchedules');
    expect(overdue.map((alarm) => alarm.Properties)).toEqual([
      expect.objectContaining({
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      }),
    ]);
  });

  it('[campaign.schedule-overdue] leaves the sweeper’s grants as they were: reading scheduled issues needs none more', () => {
    const actions = statementsOfFunction('CampaignsCampaignSweeper')
      .flatMap((statement) => list(statement.Action))
      .filter((action) => action.startsWith('dynamodb:'));
    expect([...new Set(actions)].sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
  });
});
