import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RATE_KEPT_ALARM_PERCENT } from '../../../shared/domain/campaign/rate-kept.ts';
import type { MetricName } from '../../../shared/operations/dependencies.ts';
import { SERVICE_NAME } from '../../../shared/runtime/logger.ts';
import { METRICS_NAMESPACE } from '../../../shared/runtime/metrics.ts';
import type { NewsletterApi } from './newsletter-api.ts';

/** What the alarms and the dashboard watch. */
export interface NewsletterAlarmsProps {
  readonly api: NewsletterApi;
  /** The functions by route name. */
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly table: Table;
  /** Queues that receive what the stream consumers could not process. */
  readonly deadLetterQueues: readonly IQueue[];
  /** Queues that receive campaign work given up on (it stays pending in its records). */
  readonly campaignDeadLetterQueues: readonly IQueue[];
  /** The queue of scheduled sends that did not start ([campaign.schedule-dead-letters]). */
  readonly scheduleDeadLetterQueue?: IQueue;
  /** An SNS topic the alarms notify (an existing one; the stack creates none). */
  readonly alarmTopicArn?: string;
}

/** Where the alarms stand; docs/deploy.md ("Operating") explains each. */
export const ALARM_THRESHOLDS = {
  /** Percent of API requests answered 5xx over five minutes. */
  serverErrorPercent: 5,
  /** Requests in those five minutes below which the rate is not judged (one 503 of two). */
  serverErrorMinRequests: 20,
  /** Throttled Lambda invocations or DynamoDB requests in five minutes. */
  throttles: 1,
  /** Mails SES refused or could not take in five minutes. */
  mailFailures: 3,
  /** The account's SES bounce rate: half of the 5% at which SES puts an account under review. */
  bounceRate: 0.025,
  /** The account's SES complaint rate: half of the 0.1% at which SES reviews the account. */
  complaintRate: 0.0005,
  /** Share of its rate a sending campaign must keep ([campaign.rate-kept]), percent. */
  rateKeptPercent: RATE_KEPT_ALARM_PERCENT,
  /** Minutes in a row a campaign must run below it for CampaignBehindRate. */
  rateKeptMinutes: 5,
} as const;

const PERIOD = Duration.minutes(5);
/** The sweeper's interval: one CampaignRateKept figure a minute per sending campaign. */
const SWEEP_PERIOD = Duration.minutes(1);
/** SES computes the reputation rates over its own recent window; an hour's average is plenty. */
const REPUTATION_PERIOD = Duration.hours(1);

/**
 * What an operator watches: alarms on the API's 5xx rate, on throttling (Lambda and DynamoDB),
 * on mail failures (the service's own `MailFailures` metric) and on the account's SES bounce
 * and complaint rates, and one dashboard of requests, errors, latency, the service's counts and
 * the table. Alarms notify the topic of `alarmTopicArn` when one is given; without it they
 * still show in the console.
 */
export class NewsletterAlarms extends Construct {
  readonly serverErrors: Alarm;
  /** Lambda throttles (one alarm per ten functions: an alarm reads at most ten metrics) and table throttles. */
  readonly throttles: readonly Alarm[];
  readonly mailFailures: Alarm;
  /** One per dead-letter queue: anything in it is work that was given up. */
  readonly deadLetters: readonly Alarm[];
  /** The account's SES bounce and complaint rates, at half of SES's review thresholds. */
  readonly reputation: readonly Alarm[];
  /**
   * Campaigns: one sending without progress (the sweeper's StalledCampaigns), one that paused
   * itself after failures in a row, and work the engine's queues gave up on.
   */
  readonly campaigns: readonly Alarm[];
  /**
   * [campaign.rate-kept] A sending campaign keeps less than 80% of its share of the account's
   * campaign rate for five minutes, throttled by SES or not.
   */
  readonly behindRate: Alarm;
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: NewsletterAlarmsProps) {
    super(scope, id);
    const { restApi } = props.api;
    const requests = restApi.metricCount({ period: PERIOD, statistic: 'Sum' });
    const serverErrors = restApi.metricServerError({ period: PERIOD, statistic: 'Sum' });
    const clientErrors = restApi.metricClientError({ period: PERIOD, statistic: 'Sum' });
    const functions = [...props.functions];

    const serverErrorRate = new MathExpression({
      label: '5xx, % of requests',
      expression: `IF(requests >= ${ALARM_THRESHOLDS.serverErrorMinRequests}, 100 * errors / requests, 0)`,
      usingMetrics: { requests, errors: serverErrors },
      period: PERIOD,
    });
    this.serverErrors = new Alarm(this, 'ServerErrorRate', {
      alarmDescription:
        'More than 5% of API requests answered 5xx in five minutes: the function logs carry ' +
        'the cause under the request id of each 500 or 503 body.',
      metric: serverErrorRate,
      threshold: ALARM_THRESHOLDS.serverErrorPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    // An alarm on metric math reads at most ten metrics, so functions are summed in tens.
    const lambdaThrottles = chunks(functions, 10).map((chunk, index) =>
      sumOf(
        `throttled invocations${index ? ` (${index + 1})` : ''}`,
        `fn${index}_`,
        chunk.map(([, fn]) => fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })),
      ),
    );
    const tableThrottles = sumOf(
      'throttled table requests',
      'table_',
      ['ReadThrottleEvents', 'WriteThrottleEvents'].map((metricName) =>
        props.table.metric(metricName, { period: PERIOD, statistic: 'Sum' }),
      ),
    );
    const throttleAlarm = (id: string, metric: MathExpression, what: string): Alarm =>
      new Alarm(this, id, {
        alarmDescription: `${what} were throttled: look for a burst of traffic, or raise the limit that bit.`,
        metric,
        threshold: ALARM_THRESHOLDS.throttles,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    this.throttles = [
      ...lambdaThrottles.map((metric, index) =>
        throttleAlarm(
          `LambdaThrottles${index ? index + 1 : ''}`,
          metric,
          'Lambda invocations (account or function concurrency)',
        ),
      ),
      throttleAlarm('TableThrottles', tableThrottles, 'DynamoDB requests'),
    ];

    const serviceMetric = (name: MetricName): Metric =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: { service: SERVICE_NAME },
        period: PERIOD,
        statistic: 'Sum',
      });
    this.mailFailures = new Alarm(this, 'MailFailures', {
      alarmDescription:
        'SES refused or failed mails: check the sender identity, the account sending quota and ' +
        'the mail_failed log lines.',
      metric: serviceMetric('MailFailures'),
      threshold: ALARM_THRESHOLDS.mailFailures,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    this.deadLetters = props.deadLetterQueues.map(
      (queue, index) =>
        new Alarm(this, `DeadLetters${index ? index + 1 : ''}`, {
          alarmDescription:
            'A stream batch exhausted its retries: `npx newsletter mail failed` shows the ' +
            'mails, `npx newsletter mail retry` sends them again.',
          metric: queue.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            statistic: 'Maximum',
          }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
    );

    // Account-wide metrics (SES publishes them without dimensions): the rates SES judges the
    // account by, whatever sends through it. Alarming at half leaves time to act.
    const reputationMetric = (metricName: string): Metric =>
      new Metric({
        namespace: 'AWS/SES',
        metricName,
        period: REPUTATION_PERIOD,
        statistic: 'Average',
      });
    const reputationAlarm = (id: string, metricName: string, threshold: number, what: string) =>
      new Alarm(this, id, {
        alarmDescription:
          `The account's SES ${what} rate reached ${threshold * 100}%, half of the rate at which ` +
          'SES reviews the account and may pause sending. Look at the Bounces and Complaints ' +
          'metrics and the feedback log lines: a list imported without consent, a form being ' +
          'abused with typed-in addresses.',
        metric: reputationMetric(metricName),
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    this.reputation = [
      reputationAlarm('BounceRate', 'Reputation.BounceRate', ALARM_THRESHOLDS.bounceRate, 'bounce'),
      reputationAlarm(
        'ComplaintRate',
        'Reputation.ComplaintRate',
        ALARM_THRESHOLDS.complaintRate,
        'complaint',
      ),
    ];

    const campaignAlarm = (id: string, metric: IMetric, description: string): Alarm =>
      new Alarm(this, id, {
        alarmDescription: description,
        metric,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    this.campaigns = [
      campaignAlarm(
        'CampaignStalled',
        serviceMetric('StalledCampaigns').with({ statistic: 'Maximum' }),
        "A campaign is sending but settled no mail for the settings' campaign.stall_minutes: " +
          'read the campaign_stalled and campaign_repaired log lines, then `npx newsletter ' +
          'newsletters resume ID` (it queues the unsent again) or `cancel ID`.',
      ),
      campaignAlarm(
        'CampaignAutoPaused',
        serviceMetric('CampaignsAutoPaused'),
        'A campaign paused itself after too many failed sends in a row: read the ' +
          'campaign_mail_failed and campaign_ses_unavailable lines (SES rejecting, sending ' +
          'paused, identity not verified), mend the cause, then `npx newsletter newsletters ' +
          'resume ID`.',
      ),
      campaignAlarm(
        'CampaignScheduleMissed',
        serviceMetric('SchedulesMissed'),
        "An issue's schedule fired later than the settings' campaign.schedule_lateness_minutes " +
          '(or its send could not start) and did not send: the issue stays scheduled, shown as ' +
          'MISSED by `npx newsletter newsletters list`. Read the schedule_missed line (or ' +
          'scheduled_send_failed, with the reason the send could not start), then ' +
          '`newsletters send ID` to send it now or `unschedule ID`.',
      ),
      // [campaign.schedule-overdue] a state, not an event: in alarm while any issue is overdue.
      campaignAlarm(
        'CampaignScheduleOverdue',
        serviceMetric('OverdueSchedules').with({ statistic: 'Maximum' }),
        "An issue is still scheduled more than the settings' campaign.schedule_lateness_minutes " +
          'after its time, whatever the cause (the schedule fired late, never fired, or its ' +
          'starter failed): `npx newsletter newsletters list` shows it MISSED. Read the ' +
          'schedule_overdue line and the schedule dead letters, then `newsletters send ID` to ' +
          'send it now or `unschedule ID`; the alarm clears once no issue is overdue.',
      ),
      ...(props.scheduleDeadLetterQueue
        ? [
            campaignAlarm(
              'CampaignScheduleDeadLetters',
              props.scheduleDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
                period: PERIOD,
                statistic: 'Maximum',
              }),
              'A scheduled send did not start: EventBridge Scheduler could not invoke the ' +
                'campaign starter after its retries (the message attributes say why; its body ' +
                'names the newsletter_id and its time). Mend the cause (the scheduler role, ' +
                'the starter), then `npx newsletter newsletters send ID` or `unschedule ID`, ' +
                'and delete the message.',
            ),
          ]
        : []),
      ...props.campaignDeadLetterQueues.map((queue, index) =>
        campaignAlarm(
          `CampaignDeadLetters${index ? index + 1 : ''}`,
          queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
          'Campaign work failed five deliveries in a row and was set aside. Its recipients stay ' +
            'pending in their records: read the message_failed log lines, mend the cause, then ' +
            '`npx newsletter newsletters resume ID` queues them again.',
        ),
      ),
    ];

    const rateKept = serviceMetric('CampaignRateKept').with({
      period: SWEEP_PERIOD,
      // One figure per sending campaign a sweep, each against its share of the account's
      // budget: the worst one counts, so a campaign behind is not hidden by one that keeps up.
      statistic: 'Minimum',
    });
    this.behindRate = new Alarm(this, 'CampaignBehindRate', {
      alarmDescription:
        `A sending campaign kept less than ${ALARM_THRESHOLDS.rateKeptPercent}% of its share of ` +
        `the account's campaign rate, every minute for ${ALARM_THRESHOLDS.rateKeptMinutes} ` +
        'minutes: the campaign workers are too few or too small for the rate (docs/deploy.md, ' +
        '"Sizing the campaign workers"), something slows them, or SES throttles campaign mail ' +
        "that the budget should have kept under the account's rate (another sender on the " +
        'account, a lower MaxSendRate than read). Read the campaign_behind_rate lines (which ' +
        "campaign, what share) and CampaignThrottles, the sender's duration and errors, then " +
        'deploy with a higher -c campaignMaxRate (or campaignWorkers), or find the other sender.',
      metric: rateKept,
      threshold: ALARM_THRESHOLDS.rateKeptPercent,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: ALARM_THRESHOLDS.rateKeptMinutes,
      datapointsToAlarm: ALARM_THRESHOLDS.rateKeptMinutes,
      // No campaign sending, or none judged (its first minute, its tail): nothing to say.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    if (props.alarmTopicArn) {
      const topic = Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn);
      for (const alarm of [
        this.serverErrors,
        ...this.throttles,
        this.mailFailures,
        ...this.deadLetters,
        ...this.reputation,
        ...this.campaigns,
        this.behindRate,
      ]) {
        alarm.addAlarmAction(new SnsAction(topic));
        alarm.addOkAction(new SnsAction(topic));
      }
    }

    const perFunction = (pick: (fn: IFunction) => IMetric): IMetric[] =>
      functions.map(([, fn]) => pick(fn));
    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(24),
      widgets: [
        [
          new TextWidget({
            markdown:
              '# Newsletter\nAlarms: 5xx rate, throttles, mail failures, SES bounce and ' +
              'complaint rates, stalled, auto-paused or behind-rate campaigns. A 500 or 503 body names a `request_id`; search the function ' +
              'logs for it.',
            width: 24,
            height: 2,
          }),
        ],
        [
          new GraphWidget({
            title: 'API requests and errors',
            left: [requests, clientErrors, serverErrors],
            width: 12,
          }),
          new GraphWidget({
            title: 'API latency',
            left: [
              restApi.metricLatency({ period: PERIOD, statistic: 'p50' }),
              restApi.metricLatency({ period: PERIOD, statistic: 'p99' }),
            ],
            width: 12,
          }),
        ],
        [
          new GraphWidget({
            title: 'Subscription process',
            left: (
              ['Subscriptions', 'Confirmations', 'Unsubscriptions', 'RateLimited'] as const
            ).map(serviceMetric),
            right: (['MailFailures', 'Bounces', 'Complaints'] as const).map(serviceMetric),
            width: 12,
          }),
          new GraphWidget({
            title: 'Alarmed rates',
            left: [serverErrorRate],
            right: [...lambdaThrottles, tableThrottles],
            width: 12,
          }),
        ],
        [
          new GraphWidget({
            title: 'Campaigns: mails',
            left: (['CampaignMailsSent', 'CampaignSkips', 'CampaignFailures'] as const).map(
              serviceMetric,
            ),
            right: (['CampaignThrottles', 'CampaignUnknownOutcomes'] as const).map(serviceMetric),
            width: 12,
          }),
          new GraphWidget({
            title: 'Campaigns: stalled, auto-paused, schedules missed; share of the rate kept',
            left: [
              serviceMetric('StalledCampaigns').with({ statistic: 'Maximum' }),
              serviceMetric('CampaignsAutoPaused'),
              serviceMetric('SchedulesMissed'),
              serviceMetric('OverdueSchedules').with({ statistic: 'Maximum' }),
            ],
            right: [rateKept.with({ statistic: 'Minimum', label: 'CampaignRateKept (%)' })],
            width: 12,
          }),
        ],
        [
          new GraphWidget({
            title: 'Function errors',
            left: perFunction((fn) => fn.metricErrors({ period: PERIOD, statistic: 'Sum' })),
            width: 8,
          }),
          new GraphWidget({
            title: 'Function duration p99',
            left: perFunction((fn) => fn.metricDuration({ period: PERIOD, statistic: 'p99' })),
            width: 8,
          }),
          new GraphWidget({
            title: 'Table capacity used',
            left: [
              props.table.metricConsumedReadCapacityUnits({ period: PERIOD, statistic: 'Sum' }),
              props.table.metricConsumedWriteCapacityUnits({ period: PERIOD, statistic: 'Sum' }),
            ],
            width: 8,
          }),
        ],
      ],
    });
  }
}

/** One expression summing metrics, missing data as 0. */
function sumOf(label: string, idPrefix: string, metrics: readonly IMetric[]): MathExpression {
  // Ids must be unique within a graph that shows several sums.
  const usingMetrics = Object.fromEntries(metrics.map((metric, i) => [`${idPrefix}${i}`, metric]));
  return new MathExpression({
    label,
    expression: Object.keys(usingMetrics)
      .map((key) => `FILL(${key}, 0)`)
      .join(' + '),
    usingMetrics,
    period: PERIOD,
  });
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
