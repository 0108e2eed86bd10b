import { resolve } from 'node:path';
import {
  Annotations,
  ArnFormat,
  Aws,
  CfnCondition,
  CfnOutput,
  Duration,
  Fn,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { sesFeedback } from '../../functions/feedback/feedback-function.ts';
import { ORIGIN_SECRETS_ENV, VIEWER_IP_HEADER } from '../../functions/http/client-address.ts';
import { CORS_ORIGINS_ENV } from '../../functions/http/cors.ts';
import { type Route, type RouteAccess, routes } from '../../functions/routes.ts';
import { type StreamConsumer, streamConsumers } from '../../functions/streams/consumers.ts';
import { ENV } from '../../shared/runtime/environment.ts';
import { EVENTS_ENV } from '../../shared/runtime/events-environment.ts';
import type { LimitedPaths } from './client-limits.ts';
import { CampaignEngine } from './constructs/campaign-engine.ts';
import { ClientLimitsAcl } from './constructs/client-limits-acl.ts';
import { ConsolePeople } from './constructs/console-people.ts';
import { ConsoleSite } from './constructs/console-site.ts';
import { EngagementRecording } from './constructs/engagement-recording.ts';
import { EventPublishing } from './constructs/event-publishing.ts';
import { MailFeedback } from './constructs/mail-feedback.ts';
import { NewsletterAlarms } from './constructs/newsletter-alarms.ts';
import { API_BASE_PATH, API_V2_BASE_PATH, NewsletterApi } from './constructs/newsletter-api.ts';
import { NewsletterFunction } from './constructs/newsletter-function.ts';
import { NewsletterTable } from './constructs/newsletter-table.ts';
import { OriginSecrets } from './constructs/origin-secrets.ts';
import { WebhookDelivery } from './constructs/webhook-delivery.ts';
import type { NewsletterConfig } from './newsletter-config.ts';
import { deadLetterQueue, sendOnlyDestination } from './queues.ts';
import {
  type AccessTargets,
  parameterReads,
  routePolicyStatements,
} from './route-access-policy.ts';
import { sizeWorkers, sizingWarning, type WorkerSizing } from './worker-sizing.ts';

/** Repository root: handler files, package.json, package-lock.json, tsconfig.json. */
const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

/** Props of the stack: the validated deployment context. */
export interface NewsletterStackProps extends StackProps {
  readonly config: NewsletterConfig;
}

/**
 * The whole service: one table, one function per entry of the route table, one REST API.
 * A route added to functions/routes.ts gets its function, its permissions and its methods here
 * without any change to this file.
 */
export class NewsletterStack extends Stack {
  readonly table: NewsletterTable;
  readonly api: NewsletterApi;
  /** The functions by route name. */
  readonly functions: ReadonlyMap<string, NewsletterFunction>;
  /** The stream consumers by name, with the queue their dead batches go to. */
  readonly consumers: ReadonlyMap<string, { fn: NewsletterFunction; deadLetters: Queue }>;
  /** SES's configuration set, the topic its events go to, and the function that applies them. */
  readonly feedback: MailFeedback;
  readonly feedbackFunction: NewsletterFunction;
  /** Sending newsletter issues: the planner and worker queues, their functions, the sweeper. */
  readonly campaigns: CampaignEngine;
  /** The campaign workers and their memory, as sized for `campaignMaxRate`. */
  readonly campaignWorkers: WorkerSizing;
  /** Opens and clicks: the engagement queue and the function that records them. */
  readonly engagement: EngagementRecording;
  /** Events out: the events queue, its publisher and the stack's EventBridge bus. */
  readonly events: EventPublishing;
  /** Webhooks out: the bus to the endpoints, and the retry sweep. */
  readonly webhooks: WebhookDelivery;
  readonly alarms: NewsletterAlarms;
  /** The people who sign in to the console: the user pool, its groups and its app client. */
  readonly people: ConsolePeople;
  /** The console's files and the distribution that serves them beside the API. */
  readonly console: ConsoleSite;
  /** What the distribution sends the API so that the API knows it came through it. */
  readonly originSecrets: OriginSecrets;
  /** The stage's web ACL: only what came through CloudFront, per-client limits. */
  readonly apiLimits: ClientLimitsAcl;

  constructor(scope: Construct, id: string, props: NewsletterStackProps) {
    super(scope, id, {
      description: 'Newsletter subscription service (serverless-newsletter)',
      ...props,
    });
    const { config } = props;
    const logRetention = config.logRetentionDays as RetentionDays;

    this.table = new NewsletterTable(this, 'Table', {
      retain: config.retain,
      deletionProtection: config.deletionProtection,
    });
    this.api = new NewsletterApi(this, 'Api', {
      stage: config.stage,
      throttleRate: config.throttleRate,
      throttleBurst: config.throttleBurst,
      methodThrottles: methodThrottles(config),
      logRetention,
      cloudWatchRole: config.apiGatewayCloudWatchRole,
      corsOrigins: config.corsOrigins,
    });
    // The API answers only what came through the stack's CloudFront ([http.front-door]): the
    // stage's web ACL refuses the rest, before any function runs, and limits each client.
    this.originSecrets = new OriginSecrets(this, 'OriginSecret', {
      generation: config.originSecretGeneration,
    });
    const limitedPaths = limitedPathsOf(config.stage);
    const refusalHeaders = wafCorsHeaders(config.corsOrigins);
    this.apiLimits = new ClientLimitsAcl(this, 'ApiLimits', {
      scope: 'REGIONAL',
      associateWith: this.api.restApi.deploymentStage.stageArn,
      limits: config.clientLimits,
      paths: limitedPaths,
      clientHeader: VIEWER_IP_HEADER,
      originSecrets: this.originSecrets.accepted,
      metricPrefix: 'NewsletterApi',
      responseHeaders: refusalHeaders,
    });

    this.feedback = new MailFeedback(this, 'Feedback', {
      ...(config.trackingDomain ? { trackingDomain: config.trackingDomain } : {}),
    });
    this.people = new ConsolePeople(this, 'People', { retain: config.retain });
    // Whose ID tokens a v2 route accepts ([console.token]).
    const peopleEnvironment = {
      [ENV.userPoolId]: this.people.userPool.userPoolId,
      [ENV.userPoolClientId]: this.people.client.userPoolClientId,
    };
    const targets: AccessTargets = {
      tableArn: this.table.tableArn,
      indexArns: this.table.indexArns,
      apiKeyParameterArn: this.#parameterArn(config.apiKeyParameter),
      settingsParameterArn: this.#parameterArn(config.settingsParameter),
      mailIdentityArns: [config.senderIdentity, ...config.sandboxRecipients].map((identity) =>
        this.formatArn({
          service: 'ses',
          resource: 'identity',
          resourceName: identity,
          arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
        }),
      ),
      senderIdentity: config.senderIdentity,
      configurationSetArns: [this.feedback.configurationSetArn],
      anyKeyArn: this.formatArn({
        service: 'kms',
        resource: 'key',
        resourceName: '*',
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      }),
      region: this.region,
      userPoolArn: this.people.userPool.userPoolArn,
    };
    // What the domain layer reads (shared/runtime/environment.ts), the same for every function.
    const environment = {
      [ENV.table]: this.table.tableName,
      [ENV.apiKeyParameter]: config.apiKeyParameter,
      [ENV.settingsParameter]: config.settingsParameter,
      [ENV.parameterCacheSeconds]: String(config.parameterCacheSeconds),
    };

    // The workers and their memory from the highest rate, unless given ([campaign.workers-sized]).
    this.campaignWorkers = sizeWorkers(config.campaignMaxRate, {
      ...(config.campaignWorkers !== undefined ? { workers: config.campaignWorkers } : {}),
      ...(config.campaignWorkerMemory !== undefined
        ? { memoryMb: config.campaignWorkerMemory }
        : {}),
    });
    // Before the routes: the v2 issue routes queue campaign work on its planner's queue.
    this.campaigns = new CampaignEngine(this, 'Campaigns', {
      projectRoot: PROJECT_ROOT,
      environment,
      targets,
      configurationSets: {
        withDeliveries: this.feedback.configurationSet.configurationSetName,
        withoutDeliveries: this.feedback.campaignConfigurationSet.configurationSetName,
        trackedWithDeliveries: this.feedback.trackedDeliveriesConfigurationSet.configurationSetName,
        trackedWithoutDeliveries: this.feedback.trackedConfigurationSet.configurationSetName,
      },
      campaignConfigurationSetArns: [
        this.feedback.campaignConfigurationSetArn,
        this.feedback.trackedConfigurationSetArn,
        this.feedback.trackedDeliveriesConfigurationSetArn,
      ],
      logRetention,
      workers: this.campaignWorkers.workers,
      workerMemoryMb: this.campaignWorkers.memoryMb,
      timeoutSeconds: config.campaignTimeoutSeconds,
    });
    const unreachable = sizingWarning(this.campaignWorkers);
    if (unreachable)
      Annotations.of(this.campaigns).addWarningV2(
        'newsletter:campaign-rate-unreachable',
        unreachable,
      );
    const queueArns = {
      plans: this.campaigns.queues.plans.queueArn,
      sends: this.campaigns.queues.sends.queueArn,
    };
    const { schedules } = this.campaigns;
    // Where a scheduling function's schedules go: what `newsletters schedule` reads from the
    // stack's CampaignSchedule* outputs (shared/runtime/environment.ts).
    const scheduleEnvironment = {
      [ENV.scheduleGroup]: schedules.group.ref,
      [ENV.scheduleTarget]: schedules.starter.functionArn,
      [ENV.scheduleRole]: schedules.role.roleArn,
      [ENV.scheduleDeadLetters]: schedules.deadLetters.queueArn,
    };
    const scheduleTargets = {
      scheduleArns: this.formatArn({
        service: 'scheduler',
        resource: 'schedule',
        resourceName: `${schedules.group.ref}/newsletter-*`,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      }),
      roleArn: schedules.role.roleArn,
    };

    const functions = new Map<string, NewsletterFunction>();
    for (const route of routes) {
      const access: RouteAccess = route.access;
      const queues: readonly string[] = access.queues ?? [];
      const statements = routePolicyStatements(route, {
        ...targets,
        campaignQueueArns: queueArns,
        schedules: scheduleTargets,
      });
      const handler = new NewsletterFunction(this, pascalCase(route.name), {
        entry: resolve(PROJECT_ROOT, 'functions', `${route.name}.ts`),
        projectRoot: PROJECT_ROOT,
        description: route.summary,
        environment: {
          ...environment,
          ...(route.cors
            ? {
                [CORS_ORIGINS_ENV]: config.corsOrigins === '*' ? '*' : config.corsOrigins.join(','),
              }
            : {}),
          // The planner's queue, for the routes that start or test a send.
          ...(queues.includes('plans')
            ? { [ENV.campaignPlans]: this.campaigns.queues.plans.queueUrl }
            : {}),
          ...(access.schedules ? scheduleEnvironment : {}),
          ...((route as Route).version === 'v2' ? peopleEnvironment : {}),
          // What tells a request that came through the stack's CloudFront ([http.front-door]).
          [ORIGIN_SECRETS_ENV]: Fn.join(',', [...this.originSecrets.accepted]),
        },
        statements,
        logRetention,
        readsParameters: parameterReads(route).readsSettings,
      });
      if (statements.some((statement) => statement.sid === 'ApiKeyDecrypt')) {
        Validations.of(handler.executionRole).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:kms:<AWS::Region>:<AWS::AccountId>:key/*]',
          reason:
            'The API key parameter is encrypted with the AWS-managed aws/ssm key, whose id is ' +
            'not known at synth time. The statement allows only kms:Decrypt, only through SSM ' +
            '(kms:ViaService) and only for the API key parameter (encryption context ' +
            'PARAMETER_ARN).',
        });
      }
      if (access.schedules)
        Validations.of(handler.executionRole).acknowledge({
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/<${this.getLogicalId(schedules.group)}>/newsletter-*]`,
          reason:
            "A scheduled send's one-time schedule is named after its issue and time " +
            '(newsletter-<id>-<time>), unknown at synth. The statement allows creating and ' +
            "deleting schedules only, only in the stack's own schedule group, only by that name.",
        });
      if (access.sendQuota || access.sendStatistics)
        Validations.of(handler.executionRole).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason:
            'ses:GetSendQuota and ses:GetSendStatistics have no resource-level permissions: ' +
            "the quota and the statistics are the account's. Each statement allows one " +
            'read-only action only.',
        });
      this.api.addRoute(route, handler);
      functions.set(route.name, handler);
    }
    this.functions = functions;

    this.events = new EventPublishing(this, 'Events', {
      projectRoot: PROJECT_ROOT,
      environment,
      targets,
      logRetention,
    });
    this.webhooks = new WebhookDelivery(this, 'Webhooks', {
      projectRoot: PROJECT_ROOT,
      environment,
      targets,
      logRetention,
      bus: this.events.bus,
    });
    const consumers = new Map<string, { fn: NewsletterFunction; deadLetters: Queue }>();
    for (const consumer of streamConsumers) {
      consumers.set(
        consumer.name,
        this.#streamConsumer(
          consumer,
          { ...targets, eventsQueueArn: this.events.queue.queueArn },
          {
            ...environment,
            ...((consumer.access as RouteAccess).eventsQueue
              ? { [EVENTS_ENV.eventsQueue]: this.events.queue.queueUrl }
              : {}),
            [ENV.streamRetryBaseMs]: String(config.streamRetryBaseMs),
            // What sends mail names the configuration set, so SES reports back.
            ...(consumer.access.sendsMail
              ? { [ENV.configurationSet]: this.feedback.configurationSet.configurationSetName }
              : {}),
          },
          logRetention,
        ),
      );
    }
    this.consumers = consumers;

    this.feedbackFunction = new NewsletterFunction(this, pascalCase(sesFeedback.name), {
      entry: resolve(PROJECT_ROOT, 'functions', 'feedback', `${sesFeedback.name}.ts`),
      projectRoot: PROJECT_ROOT,
      description: sesFeedback.summary,
      environment,
      statements: routePolicyStatements({ key: 'none', access: sesFeedback.access }, targets),
      logRetention,
      readsParameters: sesFeedback.access.settings,
    });
    this.feedback.subscribe(this.feedbackFunction);
    // SNS invokes it asynchronously: after Lambda's two retries an event would be dropped, and
    // with it a bounce or a complaint. It goes to a queue with an alarm instead.
    const feedbackDeadLetters = deadLetterQueue(
      this,
      `${pascalCase(sesFeedback.name)}DeadLetters`,
      'This queue is itself the on-failure destination of the feedback function; an operator ' +
        'reads its SES events and replays them (docs/deploy.md, "Operating").',
    );
    this.feedbackFunction.configureAsyncInvoke({
      retryAttempts: 2,
      onFailure: sendOnlyDestination(feedbackDeadLetters),
    });

    this.engagement = new EngagementRecording(this, 'Engagement', {
      projectRoot: PROJECT_ROOT,
      environment,
      targets,
      topic: this.feedback.engagementTopic,
      logRetention,
    });

    this.alarms = new NewsletterAlarms(this, 'Operations', {
      api: this.api,
      functions: new Map([
        ...functions,
        ...[...consumers].map(([name, { fn }]) => [name, fn] as const),
        [sesFeedback.name, this.feedbackFunction],
        ...this.campaigns.functions,
        ['engagement-recorder', this.engagement.fn],
        ['engagement-eraser', this.engagement.eraser],
        ['event-publisher', this.events.fn],
        ['webhook-deliverer', this.webhooks.deliverer],
        ['webhook-retrier', this.webhooks.retrier],
      ]),
      deadLetterQueues: [
        ...[...consumers.values()].map(({ deadLetters }) => deadLetters),
        feedbackDeadLetters,
        this.engagement.deadLetters,
        this.events.deadLetters,
        this.webhooks.deadLetters,
      ],
      campaignDeadLetterQueues: this.campaigns.deadLetters,
      scheduleDeadLetterQueue: this.campaigns.schedules.deadLetters,
      table: this.table,
      ...(config.alarmTopicArn ? { alarmTopicArn: config.alarmTopicArn } : {}),
    });

    const distributionAcl = this.#distributionWebAcl(config, limitedPaths, refusalHeaders);
    this.console = new ConsoleSite(this, 'Console', {
      consoleDir: config.consoleDir,
      logRetention,
      restApiId: this.api.restApi.restApiId,
      stage: config.stage,
      userPoolId: this.people.userPool.userPoolId,
      clientId: this.people.client.userPoolClientId,
      retain: config.retain,
      originSecret: this.originSecrets.current,
      ...(distributionAcl ? { webAclId: distributionAcl } : {}),
      ...(config.customDomain ? { customDomain: config.customDomain } : {}),
    });
    // A rotated origin secret goes out only once the stage's web ACL and every function
    // accept it, so no request through CloudFront is refused meanwhile.
    this.console.distribution.node.addDependency(this.apiLimits, ...functions.values());
    new CfnOutput(this, 'ApiRoot', {
      description: '{api_root}: the base every endpoint path is appended to',
      value: `${this.console.url}${config.stage}${API_BASE_PATH}`,
    });
    new CfnOutput(this, 'ConsoleUrl', {
      description:
        'The web console, with the API on the same origin (sign in: npx newsletter people add)',
      value: this.console.url,
    });
    new CfnOutput(this, 'ConsoleUserPoolId', {
      description:
        "The console's Cognito user pool: NEWSLETTER_USER_POOL_ID for `npx newsletter people`",
      value: this.people.userPool.userPoolId,
    });
    new CfnOutput(this, 'ConsoleUserPoolClientId', {
      description: "The console's app client (sign-in with USER_PASSWORD_AUTH)",
      value: this.people.client.userPoolClientId,
    });
    new CfnOutput(this, 'TableName', {
      description: 'DynamoDB table holding subscribers, tokens and newsletters',
      value: this.table.tableName,
    });
    const mailer = consumers.get('mailer');
    if (mailer) {
      new CfnOutput(this, 'MailDeadLetters', {
        description:
          "The mailer's dead-letter queue: NEWSLETTER_MAIL_DEAD_LETTERS for `npx newsletter mail failed`",
        value: mailer.deadLetters.queueUrl,
      });
    }
    new CfnOutput(this, 'CampaignQueue', {
      description:
        "The campaign planner's queue: NEWSLETTER_CAMPAIGN_PLANS_QUEUE for `npx newsletter newsletters send` and the package",
      value: this.campaigns.queues.plans.queueUrl,
    });
    new CfnOutput(this, 'CampaignScheduleGroup', {
      description: `EventBridge Scheduler group of scheduled sends: ${ENV.scheduleGroup}`,
      value: schedules.group.ref,
    });
    new CfnOutput(this, 'CampaignScheduleTarget', {
      description: `The function a scheduled send invokes: ${ENV.scheduleTarget}`,
      value: schedules.starter.functionArn,
    });
    new CfnOutput(this, 'CampaignScheduleRole', {
      description: `The role schedules invoke it with (pass it: iam:PassRole): ${ENV.scheduleRole}`,
      value: schedules.role.roleArn,
    });
    new CfnOutput(this, 'CampaignScheduleDeadLetters', {
      description: `ARN of the queue of scheduled sends that did not start: ${ENV.scheduleDeadLetters}`,
      value: schedules.deadLetters.queueArn,
    });
    new CfnOutput(this, 'EventBusName', {
      description: 'The EventBridge bus of subscriber and issue events (docs/api.md, "Events")',
      value: this.events.bus.eventBusName,
    });
    new CfnOutput(this, 'FeedbackDeadLetters', {
      description: 'SES events the feedback function failed to apply after its retries',
      value: feedbackDeadLetters.queueUrl,
    });
    new CfnOutput(this, 'Dashboard', {
      description: 'CloudWatch dashboard of the service (alarms: docs/deploy.md, "Operating")',
      value: this.alarms.dashboard.dashboardName,
    });
    if (config.customDomain) {
      new CfnOutput(this, 'CustomDomainTarget', {
        description: 'Point a CNAME or Route 53 alias record for the custom domain here',
        value: this.console.distribution.distributionDomainName,
      });
    }
  }

  /**
   * The distribution's web ACL: the one given (`distributionWebAclArn`, made in us-east-1 by
   * the edge stack), else one of the stack's own, which CloudFormation creates only where
   * CloudFront-scoped web ACLs live (us-east-1); elsewhere the stage's web ACL alone limits
   * each client, and the DistributionWebAcl output says how to add the distribution's.
   */
  #distributionWebAcl(
    config: NewsletterConfig,
    paths: LimitedPaths,
    responseHeaders: ReturnType<typeof wafCorsHeaders>,
  ): string {
    if (config.distributionWebAclArn) {
      new CfnOutput(this, 'DistributionWebAcl', { value: config.distributionWebAclArn });
      return config.distributionWebAclArn;
    }
    const inUsEast1 = new CfnCondition(this, 'InUsEast1', {
      expression: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
    });
    const edge = new ClientLimitsAcl(this, 'DistributionLimits', {
      scope: 'CLOUDFRONT',
      limits: config.clientLimits,
      paths,
      metricPrefix: 'NewsletterDistribution',
      responseHeaders,
    });
    edge.acl.cfnOptions.condition = inUsEast1;
    new CfnOutput(this, 'DistributionWebAcl', {
      description:
        "The distribution's web ACL of per-client limits (in us-east-1 only; elsewhere " +
        'deploy the edge stack, -c edgeStack=true, and pass -c distributionWebAclArn)',
      value: edge.acl.attrArn,
      condition: inUsEast1,
    });
    return Fn.conditionIf(inUsEast1.logicalId, edge.acl.attrArn, Aws.NO_VALUE).toString();
  }

  /**
   * A function the table's stream drives: its event source mapping filters the records it
   * handles, batches them, halves a failing batch, retries a bounded number of times, takes
   * back only the records that failed, and sends what exhausts its retries to a dead-letter
   * queue (which has an alarm).
   */
  #streamConsumer(
    consumer: StreamConsumer,
    targets: AccessTargets,
    environment: Record<string, string>,
    logRetention: RetentionDays,
  ): { fn: NewsletterFunction; deadLetters: Queue } {
    const id = pascalCase(consumer.name);
    const statements = routePolicyStatements({ key: 'none', access: consumer.access }, targets);
    const fn = new NewsletterFunction(this, id, {
      entry: resolve(PROJECT_ROOT, 'functions', 'streams', `${consumer.name}.ts`),
      projectRoot: PROJECT_ROOT,
      description: consumer.summary,
      environment,
      statements,
      logRetention,
      readsParameters: consumer.access.settings,
      // A consumer waits between attempts (up to 30 s) within its invocation.
      timeout: Duration.seconds(60),
    });
    const deadLetters = deadLetterQueue(
      this,
      `${id}DeadLetters`,
      'This queue is itself the on-failure destination of a stream event source mapping; ' +
        'operators read and clear it with the CLI (npx newsletter mail failed / retry).',
    );
    fn.addEventSource(
      new DynamoEventSource(this.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: consumer.batchSize,
        maxBatchingWindow: Duration.seconds(0),
        bisectBatchOnError: true,
        retryAttempts: consumer.retries,
        reportBatchItemFailures: true,
        onFailure: sendOnlyDestination(deadLetters),
        filters: consumer.filters.map((filter) =>
          FilterCriteria.filter({
            eventName: FilterRule.or(...filter.eventNames),
            dynamodb: {
              Keys: {
                pk: { S: FilterRule.beginsWith(filter.keyPrefix) },
                ...(filter.sortKey ? { sk: { S: FilterRule.isEqual(filter.sortKey) } } : {}),
              },
              ...(filter.states || filter.withAttribute
                ? {
                    NewImage: {
                      ...(filter.states ? { state: { S: FilterRule.or(...filter.states) } } : {}),
                      ...(filter.withAttribute
                        ? { [filter.withAttribute]: { S: FilterRule.exists() } }
                        : {}),
                    },
                  }
                : {}),
            },
          }),
        ),
      }),
    );
    Validations.of(fn.executionRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams, which the Lambda service calls with the role to read the ' +
        "table's stream, has no resource-level permissions; every other stream action is " +
        'granted on the stream ARN only.',
    });
    return { fn, deadLetters };
  }

  /** ARN of an SSM parameter; names with and without a leading slash both work. */
  #parameterArn(name: string): string {
    return this.formatArn({
      service: 'ssm',
      resource: 'parameter',
      resourceName: name.replace(/^\//, ''),
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }
}

/** The request paths (stage included) of the routes with limits of their own. */
export function limitedPathsOf(stage: string): LimitedPaths {
  const pathsOf = (traffic: Route['traffic']): string[] =>
    routes
      .filter((route: Route) => route.traffic === traffic)
      .map(
        (route: Route) =>
          `/${stage}${route.version === 'v2' ? API_V2_BASE_PATH : API_BASE_PATH}${route.path}`,
      );
  return { signUp: pathsOf('sign-up'), unsubscribe: pathsOf('unsubscribe') };
}

/** The sign-up and unsubscribe methods' own throttles, by method below the stage. */
function methodThrottles(
  config: NewsletterConfig,
): Record<string, { readonly rate: number; readonly burst: number }> {
  const throttles: Record<string, { readonly rate: number; readonly burst: number }> = {};
  for (const route of routes as readonly Route[]) {
    if (!route.traffic) continue;
    const base = route.version === 'v2' ? API_V2_BASE_PATH : API_BASE_PATH;
    for (const method of route.methods) {
      throttles[`${base}${route.path}/${method}`] =
        route.traffic === 'sign-up' ? config.signUpThrottle : config.unsubscribeThrottle;
    }
  }
  return throttles;
}

/**
 * `Access-Control-Allow-Origin` on the web ACLs' refusals, as on API Gateway's own answers:
 * static for `*` or a single origin. A web ACL cannot echo a request's origin, so with several
 * the header is left out and a page of another site cannot read the refusal.
 */
export function wafCorsHeaders(
  origins: '*' | readonly string[],
): { name: string; value: string }[] {
  if (origins === '*') return [{ name: 'Access-Control-Allow-Origin', value: '*' }];
  const [only] = origins;
  return origins.length === 1 && only ? [{ name: 'Access-Control-Allow-Origin', value: only }] : [];
}

/** `subscribers-add` → `SubscribersAdd`, for construct ids. */
function pascalCase(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
