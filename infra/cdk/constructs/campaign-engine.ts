import { resolve } from 'node:path';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  type CampaignFunction,
  type CampaignFunctionName,
  campaignFunctions,
} from '../../../functions/campaigns/campaign-functions.ts';
import type { CampaignQueueName } from '../../../functions/routes.ts';
import { ENV } from '../../../shared/runtime/environment.ts';
import { deadLetterQueue } from '../queues.ts';
import { type AccessTargets, routePolicyStatements } from '../route-access-policy.ts';
import { NewsletterFunction } from './newsletter-function.ts';

/** What the engine is built on. */
export interface CampaignEngineProps {
  readonly projectRoot: string;
  /** What every function of the stack reads (table, parameters). */
  readonly environment: Readonly<Record<string, string>>;
  /** The stack's access targets, without the queues (the engine adds its own). */
  readonly targets: AccessTargets;
  /**
   * The SES configuration sets campaign mail names, so its feedback comes back: the stack's
   * (with delivery events) for a recipient with bounces counted, the campaign one otherwise.
   */
  readonly configurationSets: {
    readonly withDeliveries: string;
    readonly withoutDeliveries: string;
    /** The tracked sets ([engagement.tracking]): opens and clicks besides. */
    readonly trackedWithDeliveries: string;
    readonly trackedWithoutDeliveries: string;
  };
  /** The campaign's own configuration sets (untracked, and both tracked ones). */
  readonly campaignConfigurationSetArns: readonly string[];
  readonly logRetention: RetentionDays;
  /** Workers that may send at once, and the memory of each (infra/cdk/worker-sizing.ts). */
  readonly workers: number;
  readonly workerMemoryMb: number;
  /** How long a campaign function may run. */
  readonly timeoutSeconds: number;
}

/** A receive count after which a message of the engine goes to its dead-letter queue. */
const MAX_RECEIVES = 5;

/**
 * The campaign engine (docs/storage.md, "Campaigns"): the planner's FIFO queue (one message
 * group per campaign, so its pages are planned one at a time), the workers' queue, each with a
 * dead-letter queue, and one function per entry of functions/campaigns/campaign-functions.ts,
 * triggered by its queue (the workers' mapping bounded by the number of workers) or by the
 * sweeper's schedule, with exactly the permissions its entry lists.
 */
export class CampaignEngine extends Construct {
  readonly queues: Readonly<Record<CampaignQueueName, Queue>>;
  readonly deadLetters: readonly Queue[];
  readonly functions: ReadonlyMap<CampaignFunctionName, NewsletterFunction>;
  readonly sweep: Rule;
  /**
   * Scheduled sends: the group their one-time schedules go in, the role EventBridge Scheduler
   * invokes with (lambda:InvokeFunction on the starter, sqs:SendMessage on the dead letters,
   * nothing else), the starter, and the schedules' dead-letter queue (their DeadLetterConfig:
   * a firing the Scheduler could not deliver, [campaign.schedule-dead-letters]; a starter that
   * fails is Lambda's to retry, and the sweeper's overdue check reports the issue either way,
   * [campaign.schedule-overdue]). Schedules are created by whoever schedules, with their own credentials
   * (scheduler:CreateSchedule on the group, iam:PassRole on the role): the operator's CLI, a
   * Lambda of the package, or API v2's schedule route (its grants: functions/routes.ts).
   */
  readonly schedules: {
    readonly group: CfnScheduleGroup;
    readonly role: Role;
    readonly starter: NewsletterFunction;
    readonly deadLetters: Queue;
  };

  constructor(scope: Construct, id: string, props: CampaignEngineProps) {
    super(scope, id);
    const timeout = Duration.seconds(props.timeoutSeconds);
    // A message comes back only after the invocation that held it is over (Lambda requires at
    // least the function's timeout): a worker's claims (leases) have lapsed by then.
    const visibilityTimeout = Duration.seconds(props.timeoutSeconds * 2);
    const why =
      'This queue is itself the dead-letter queue of a campaign queue; what lands here is ' +
      'also still pending in its records, and the sweeper or a resume queues it again.';
    // A FIFO queue's dead-letter queue must be FIFO too.
    const plansDead = deadLetterQueue(this, 'PlanDeadLetters', why, { fifo: true });
    const sendsDead = deadLetterQueue(this, 'SendDeadLetters', why);
    const plans = new Queue(this, 'Plans', {
      fifo: true,
      // Deduplication ids are given by the sender: the same page queued twice is one message.
      contentBasedDeduplication: false,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout,
      retentionPeriod: Duration.days(14),
      deadLetterQueue: { queue: plansDead, maxReceiveCount: MAX_RECEIVES },
    });
    const sends = new Queue(this, 'Sends', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout,
      retentionPeriod: Duration.days(14),
      deadLetterQueue: { queue: sendsDead, maxReceiveCount: MAX_RECEIVES },
    });
    this.queues = { plans, sends };
    this.deadLetters = [plansDead, sendsDead];

    const targets: AccessTargets = {
      ...props.targets,
      campaignQueueArns: { plans: plans.queueArn, sends: sends.queueArn },
      configurationSetArns: [
        ...(props.targets.configurationSetArns ?? []),
        ...props.campaignConfigurationSetArns,
      ],
    };
    const functions = new Map<CampaignFunctionName, NewsletterFunction>();
    let sweep: Rule | undefined;
    let schedules: CampaignEngine['schedules'] | undefined;
    for (const entry of campaignFunctions as readonly CampaignFunction[]) {
      const name = entry.name as CampaignFunctionName;
      const fn = new NewsletterFunction(this, pascalCase(name), {
        entry: resolve(props.projectRoot, 'functions', 'campaigns', `${name}.ts`),
        projectRoot: props.projectRoot,
        description: entry.summary,
        environment: {
          ...props.environment,
          [ENV.campaignPlans]: plans.queueUrl,
          ...(entry.access.queues?.includes('sends')
            ? { [ENV.campaignSends]: sends.queueUrl }
            : {}),
          ...(entry.paced ? { [ENV.campaignWorkers]: String(props.workers) } : {}),
          ...(entry.access.sendsMail
            ? {
                [ENV.configurationSet]: props.configurationSets.withDeliveries,
                [ENV.campaignConfigurationSet]: props.configurationSets.withoutDeliveries,
                [ENV.trackedConfigurationSet]: props.configurationSets.trackedWithoutDeliveries,
                [ENV.trackedDeliveriesConfigurationSet]:
                  props.configurationSets.trackedWithDeliveries,
              }
            : {}),
        },
        statements: [
          ...routePolicyStatements({ key: 'none', access: entry.access }, targets),
          ...('queue' in entry.trigger
            ? [
                // What Lambda's poller needs (the AWSLambdaSQSQueueExecutionRole actions), not
                // the wider consume grant SqsEventSource adds (ChangeMessageVisibility,
                // GetQueueUrl): no call of ours uses those.
                new PolicyStatement({
                  sid: 'QueueMapping',
                  actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
                  resources: [this.queues[entry.trigger.queue].queueArn],
                }),
              ]
            : []),
        ],
        logRetention: props.logRetention,
        readsParameters: entry.access.settings,
        timeout,
        // The workers' memory buys their CPU share, sized to the rate; the others keep the default.
        ...(entry.paced ? { memorySize: props.workerMemoryMb } : {}),
      });
      if (entry.access.sendQuota)
        Validations.of(fn.executionRole).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason:
            "ses:GetSendQuota has no resource-level permissions: the quota is the account's. " +
            'The statement allows that one read-only action only.',
        });
      const trigger = entry.trigger;
      if ('queue' in trigger) {
        new EventSourceMapping(this, `${pascalCase(name)}Queue`, {
          target: fn,
          eventSourceArn: this.queues[trigger.queue].queueArn,
          batchSize: trigger.batchSize,
          reportBatchItemFailures: true,
          // The workers' mapping runs at most `workers` at once: the pacing splits the
          // campaign's rate among exactly that many.
          ...(trigger.queue === 'sends' ? { maxConcurrency: props.workers } : {}),
        });
      } else if ('scheduler' in trigger) {
        schedules = this.#scheduledSends(fn);
      } else {
        sweep = new Rule(this, 'Sweep', {
          description: 'Every minute: the campaign sweeper (stall alarms, recounts, repairs)',
          schedule: Schedule.expression(trigger.schedule),
          targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
        });
      }
      functions.set(name, fn);
    }
    if (!sweep) throw new Error('the campaign engine has no sweeper');
    if (!schedules) throw new Error('the campaign engine has no starter for scheduled sends');
    this.sweep = sweep;
    this.schedules = schedules;
    this.functions = functions;
  }

  /**
   * The schedule group, the scheduler's role for the starter and the dead letters of firings.
   * The role trusts scheduler.amazonaws.com only for schedules of this account
   * (aws:SourceAccount), and may invoke the starter and send to the dead letters, nothing else.
   */
  #scheduledSends(starter: NewsletterFunction): CampaignEngine['schedules'] {
    const group = new CfnScheduleGroup(this, 'ScheduleGroup', {});
    // Standard, not FIFO: the Scheduler refuses a FIFO queue as a schedule's dead-letter queue.
    const deadLetters = deadLetterQueue(
      this,
      'ScheduleDeadLetters',
      'This queue is itself the dead-letter queue of the scheduled sends (their ' +
        'DeadLetterConfig); an operator reads it and sends or unschedules the issue ' +
        '(docs/deploy.md, "Operating").',
    );
    const role = new Role(this, 'SchedulerRole', {
      description: 'EventBridge Scheduler invokes the campaign starter with this role',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'InvokeStarter',
        actions: ['lambda:InvokeFunction'],
        resources: [starter.functionArn],
      }),
    );
    // The Scheduler sends a firing it could not deliver with the schedule's role.
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DeadLetters',
        actions: ['sqs:SendMessage'],
        resources: [deadLetters.queueArn],
      }),
    );
    return { group, role, starter, deadLetters };
  }
}

/** `campaign-sender` → `CampaignSender`, for construct ids. */
function pascalCase(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
