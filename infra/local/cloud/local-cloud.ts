/**
 * The synthesized stack, running on this machine: its table created from the template in
 * DynamoDB Local, its queues in the local SQS and its SES configuration sets in the local SES,
 * each function in its own execution environments with the template's environment and its own
 * credentials, every AWS call checked against the function's role policy by the loopback
 * endpoint, the REST API served from the template's routes, the table's stream and the queues
 * driving their functions as the template's event source mappings say, the template's topics
 * delivering what SES publishes to the functions subscribed to them, and its scheduled rules
 * invoking their target functions.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  CognitoIdentityProviderClient,
  CreateGroupCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  GroupExistsException,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  ConfigurationSetAlreadyExistsException,
  CreateConfigurationSetCommand,
  CreateConfigurationSetEventDestinationCommand,
  EventDestinationAlreadyExistsException,
  type EventType,
  SESClient,
} from '@aws-sdk/client-ses';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  QueueDoesNotExist,
  QueueNameExists,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { ENV } from '../../../shared/runtime/environment.ts';
import { EVENTS_ENV } from '../../../shared/runtime/events-environment.ts';
import type { QueueDepth } from '../stand-ins/sqs-local.ts';
import { type Answer, type ApiGateway, startApiGateway } from './api-gateway.ts';
import type { FailedDelivery } from './async-invocation.ts';
import {
  type AwsEndpoint,
  type Denial,
  type ServiceName,
  startAwsEndpoint,
} from './aws-endpoint.ts';
import { type LocalDistribution, startLocalDistribution } from './cloudfront.ts';
import {
  type DeployedFunction,
  type DeployedQueue,
  DeployedStack,
  type DeployedUserPool,
  type GeneratedSecret,
  type PolicyDocument,
} from './deployed-stack.ts';
import { type EventBuses, startEventBuses } from './event-bus.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './intrinsics.ts';
import { type CodeSource, type InvocationResult, LambdaHost } from './lambda-host.ts';
import { type QueueMappings, startQueueMappings } from './queue-mappings.ts';
import { type RuleTargetOutcome, startRuleSchedules } from './rule-schedules.ts';
import { type DeadLetterEvent, type LocalScheduler, startLocalScheduler } from './scheduler.ts';
import { type StreamMappings, startStreamMappings } from './stream-mappings.ts';
import { startTopicDeliveries } from './topic-deliveries.ts';

/** How to run the stack. */
export interface LocalCloudOptions {
  /** The cdk.out folder `cdk synth` wrote. */
  readonly cdkOut: string;
  /** For a cdk.out written without bundles: the assembly whose bundles to run (DeployedStack). */
  readonly bundlesFrom?: string;
  /** Run the bundles cdk.out holds, or the TypeScript sources they were built from. */
  readonly code: CodeSource;
  readonly projectRoot: string;
  /**
   * Where the stand-ins listen; the Scheduler is started here (scheduler.ts). Cognito only for
   * a stack with a user pool: its stand-in is also where the pool's tokens are issued.
   */
  readonly upstreams: Record<
    Exclude<ServiceName, 'scheduler' | 'cognito-idp' | 'events'>,
    string
  > & {
    readonly 'cognito-idp'?: string;
  };
  /** Whether an SSM parameter is a SecureString. */
  readonly isSecureParameter: (name: string) => boolean;
  /** The public port: the distribution's, else the API's (0 picks a free one). */
  readonly apiPort: number;
  /** Every line a function writes. */
  readonly onLog: (line: string, fn: DeployedFunction) => void;
  readonly onDenied?: (denial: Denial) => void;
  /** Modules each execution environment imports first (test observers). */
  readonly preload?: readonly string[];
  /**
   * A failure of an event source mapping's poller (it goes on polling, as Lambda's does), or of
   * the local SNS or EventBridge.
   */
  readonly onStreamError?: (error: unknown) => void;
  /** Wait after a poll of the table's stream that found nothing (default 1 s). */
  readonly streamIdlePollMs?: number;
  /**
   * Waits before the two retries of a failed asynchronous invocation (a topic's subscriber);
   * default one and two seconds (Lambda's are about one and two minutes).
   */
  readonly asyncRetryWaitsMs?: readonly number[];
  /**
   * An asynchronous invocation (a topic's message, a rule's event) whose function failed on
   * every attempt (sent to its on-failure queue when it has one, as on AWS).
   */
  readonly onDeliveryGaveUp?: (failure: FailedDelivery) => void;
  /**
   * Fire the scheduled rules on their schedules (default true, as deployed). Off, a rule
   * fires only when `fireRule` is called.
   */
  readonly runSchedules?: boolean;
  /** The clock EventBridge Scheduler fires one-time schedules by (tests move it). */
  readonly schedulerNow?: () => Date;
  /** Where EventBridge Scheduler keeps its schedules across restarts (default: in memory). */
  readonly schedulesFile?: string;
  /** See LocalPhysicalIds.tableSuffix: for a DynamoDB Local other stacks use too. */
  readonly tableSuffix?: string;
  /**
   * What the distribution's default behaviour serves (the console, as its S3 origin serves it
   * deployed), made once the stack's resources exist (its outputs name the user pool).
   */
  readonly site?: (stack: DeployedStack) => (method: string, url: URL) => Promise<Answer>;
  /** The clock of the web ACLs' rate-based rules (tests move it). */
  readonly webAclNow?: () => number;
}

/** An event SES publishes for a configuration set to an SNS topic (local-stack wires SES to it). */
export interface SesEventNotification {
  readonly configurationSet: string;
  readonly topicArn: string;
  readonly message: string;
}

/** The running stack. */
export interface LocalCloud {
  readonly stack: DeployedStack;
  readonly endpoint: AwsEndpoint;
  /**
   * The REST API the template defines, at its execute-api address; undefined for a stack
   * without one. Behind a distribution it answers only what came through it.
   */
  readonly api: ApiGateway | undefined;
  /** The CloudFront distribution in front of it, the public address; undefined without one. */
  readonly distribution: LocalDistribution | undefined;
  /** Physical name of the table. */
  readonly tableName: string;
  readonly functions: ReadonlyMap<string, LambdaHost>;
  /** The stack's queues by logical id: name, ARN and URL (at the AWS endpoint). */
  readonly queues: ReadonlyMap<
    string,
    { readonly name: string; readonly arn: string; readonly url: string }
  >;
  /** EventBridge Scheduler, for a stack with a schedule group (scheduler.ts). */
  readonly scheduler: LocalScheduler | undefined;
  /** EventBridge's buses, for a stack with a bus of its own (event-bus.ts). */
  readonly eventBuses: EventBuses | undefined;
  /** Invokes a function directly, as an event source would. */
  invoke(logicalId: string, event: unknown): Promise<InvocationResult>;
  /**
   * Fires a scheduled rule now, as its schedule would, and resolves once every target's
   * invocation is over (a target no Lambda permission lets the rule invoke is reported as a
   * denial and not invoked).
   */
  fireRule(logicalId: string): Promise<RuleTargetOutcome[]>;
  /**
   * SNS receiving what SES publishes for a configuration set: allowed by the topic's policy
   * (SES for that configuration set), delivered to the topic's subscribed functions.
   */
  publishSesEvent(notification: SesEventNotification): void;
  /**
   * Resolves once the stream's event source mappings have delivered everything written so far
   * (keyless requests settled, outbox mails sent or dead-lettered), the queues' mappings
   * everything queued (delayed messages, and failed ones waiting out their visibility timeout,
   * included), and the topics and rules everything published or fired (SES's feedback
   * applied).
   */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** Execution environments a function may have when nothing in the template says more. */
const DEFAULT_ENVIRONMENTS = 4;

/** The queue name of a queue URL (its last path segment). */
const queueNameOf = (url: string): string => url.split('/').at(-1) ?? '';

/** The DynamoDB operations that can put a record on the table's stream. */
const TABLE_WRITES: ReadonlySet<string> = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'ExecuteStatement',
  'BatchExecuteStatement',
  'ExecuteTransaction',
]);

/** A value for a generated secret, as Secrets Manager draws one: random letters and digits. */
function drawSecret(secret: GeneratedSecret): string {
  const alphabet = secret.excludePunctuation
    ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
    : 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+-.:;<=>?@[]^_{|}~';
  return Array.from(randomBytes(secret.length), (byte) => alphabet[byte % alphabet.length]).join(
    '',
  );
}

/** Starts the stack of `cdkOut` against the stand-ins. */
export async function startLocalCloud(options: LocalCloudOptions): Promise<LocalCloud> {
  // Known once the template is read; the endpoint asks for them per call.
  const queuePolicies = new Map<string, PolicyDocument>();
  // The table's stream readers, once started: a write forwarded to DynamoDB wakes them.
  let mappings: StreamMappings | undefined;
  const endpoint = await startAwsEndpoint({
    upstreams: options.upstreams,
    facts: {
      isSecureParameter: options.isSecureParameter,
      queueArn: (url) =>
        url ? `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${queueNameOf(url)}` : undefined,
      queuePolicy: (arn) => queuePolicies.get(arn),
    },
    ...(options.onDenied ? { onDenied: options.onDenied } : {}),
    onForwarded: (service, operation) => {
      if (service === 'dynamodb' && TABLE_WRITES.has(operation)) mappings?.nudge();
    },
  });
  const stopping: (() => Promise<void>)[] = [() => endpoint.stop()];
  const stop = async (): Promise<void> => {
    for (const part of stopping.splice(0).reverse()) await part().catch(() => undefined);
  };
  try {
    const template = new DeployedStack(
      options.cdkOut,
      {
        endpoint: endpoint.url,
        ...(options.tableSuffix ? { tableSuffix: options.tableSuffix } : {}),
      },
      options.bundlesFrom,
    );
    const table = await createTableOf(template, options.upstreams.dynamodb);
    const tableName = table.tableName;
    const cognito = options.upstreams['cognito-idp'];
    const pools = template.userPools();
    if (pools.length > 0 && !cognito) throw new Error('the stack has a user pool, but no Cognito');
    const cognitoIds = cognito ? await createUserPoolsOf(pools, cognito) : new Map();
    const stack = template.withIds({
      ...(table.streamLabel ? { streamLabel: table.streamLabel } : {}),
      cognito: cognitoIds,
      // Drawn anew at every start, as Secrets Manager draws them when the stack is created.
      secrets: new Map(
        template.generatedSecrets().map((secret) => [secret.arn, drawSecret(secret)] as const),
      ),
    });
    const queueDefinitions = stack.queues();
    for (const queue of queueDefinitions) {
      if (queue.policy) queuePolicies.set(queue.arn, queue.policy);
    }
    const queues = await createQueuesOf(queueDefinitions, options.upstreams.sqs, endpoint.url);
    await createConfigurationSetsOf(stack, options.upstreams.ses);
    const queueMappingDefinitions = stack.queueMappings();
    const functions = new Map<string, LambdaHost>();
    /** A function's environments: its reserved concurrency, else enough for its mappings. */
    const environmentsOf = (fn: DeployedFunction): number =>
      fn.reservedConcurrency ??
      Math.max(
        DEFAULT_ENVIRONMENTS,
        queueMappingDefinitions
          .filter((mapping) => mapping.functionLogicalId === fn.logicalId)
          .reduce((sum, mapping) => sum + (mapping.maximumConcurrency ?? 0), 0),
      );
    for (const fn of stack.functions()) {
      const credentials = endpoint.register({
        name: fn.functionName,
        roleArn: fn.roleArn,
        policy: fn.policy,
      });
      functions.set(
        fn.logicalId,
        new LambdaHost({
          fn,
          credentials,
          endpoint: endpoint.url,
          code: options.code,
          projectRoot: options.projectRoot,
          onLog: options.onLog,
          maxEnvironments: environmentsOf(fn),
          ...(options.preload ? { preload: options.preload } : {}),
          localEnvironment: {
            // The stand-in issues the pool's tokens under its own URL, not Cognito's.
            ...(cognito ? { [ENV.cognitoIssuerDomain]: cognito } : {}),
            // Webhooks to the local world's receivers on loopback, over http ([webhooks.ssrf]):
            // set here only, never by the stack.
            [EVENTS_ENV.webhooksLocalHttp]: '1',
          },
        }),
      );
    }
    stopping.push(() => Promise.all([...functions.values()].map((host) => host.stop())).then());
    const invoke = (logicalId: string, event: unknown): Promise<InvocationResult> => {
      const host = functions.get(logicalId);
      if (!host) throw new Error(`no function ${logicalId} in the stack`);
      return host.invoke(event);
    };
    const byId = new Map(stack.functions().map((fn) => [fn.logicalId, fn]));
    // The Lambda service reads a stream or a queue with the function's role, as a caller of
    // its own so that its calls are told apart from the function's.
    const mappingCredentials = (mapping: { functionLogicalId: string }) => {
      const fn = byId.get(mapping.functionLogicalId);
      if (!fn) throw new Error(`no function ${mapping.functionLogicalId} in the stack`);
      return endpoint.register({
        name: `${fn.functionName} (event source mapping)`,
        roleArn: fn.roleArn,
        policy: fn.policy,
        recordDistinctOnly: true,
      });
    };
    const queueUrlOf = (arn: string): string => {
      const name = arn.split(':').at(-1) ?? '';
      return `${endpoint.url}/${LOCAL_ACCOUNT}/${name}`;
    };
    const streamMappings = stack.streamMappings();
    if (streamMappings.length > 0) {
      if (!table.localStreamArn)
        throw new Error('event source mappings, but the table has no stream');
      mappings = startStreamMappings({
        mappings: streamMappings,
        localStreamArn: table.localStreamArn,
        invoke,
        credentialsOf: mappingCredentials,
        endpoint: endpoint.url,
        queueUrlOf,
        functionArnOf: (logicalId) => byId.get(logicalId)?.functionArn ?? logicalId,
        ...(options.onStreamError ? { onError: options.onStreamError } : {}),
        ...(options.streamIdlePollMs ? { idlePollMs: options.streamIdlePollMs } : {}),
      });
      const running = mappings;
      stopping.push(() => running.stop());
    }
    let queueMappings: QueueMappings | undefined;
    if (queueMappingDefinitions.length > 0) {
      // What settled() reads: the queue's depth from SQS itself, outside any role.
      const inspector = new SQSClient({
        endpoint: options.upstreams.sqs,
        region: LOCAL_REGION,
        credentials: { accessKeyId: 'local-cloud', secretAccessKey: 'local' },
      });
      queueMappings = startQueueMappings({
        mappings: queueMappingDefinitions,
        invoke,
        credentialsOf: mappingCredentials,
        endpoint: endpoint.url,
        queueUrlOf,
        concurrencyOf: (logicalId) => functions.get(logicalId)?.maxEnvironments ?? 1,
        depthOf: (arn) =>
          depthOf(inspector, `${options.upstreams.sqs}/${LOCAL_ACCOUNT}/${arn.split(':').at(-1)}`),
        ...(options.onStreamError ? { onError: options.onStreamError } : {}),
      });
      const running = queueMappings;
      stopping.push(async () => {
        await running.stop();
        inspector.destroy();
      });
    }
    const onFailureQueues = new Map(
      stack
        .asyncInvokeConfigs()
        .flatMap((config) =>
          config.onFailureArn ? [[config.functionLogicalId, config.onFailureArn] as const] : [],
        ),
    );
    const functionsById = new Map(stack.functions().map((fn) => [fn.logicalId, fn]));
    const asyncFailureClients = new Map<string, SQSClient>();
    /** The Lambda service sends a given-up event to the function's queue with its role. */
    const sendToOnFailure = async (
      functionLogicalId: string,
      event: unknown,
      failure: FailedDelivery,
    ): Promise<boolean> => {
      const destination = onFailureQueues.get(functionLogicalId);
      const fn = functionsById.get(functionLogicalId);
      if (!destination || !fn) return false;
      let sqs = asyncFailureClients.get(functionLogicalId);
      if (!sqs) {
        sqs = new SQSClient({
          endpoint: endpoint.url,
          region: LOCAL_REGION,
          maxAttempts: 3,
          credentials: endpoint.register({
            name: `${fn.functionName} (asynchronous invocation)`,
            roleArn: fn.roleArn,
            policy: fn.policy,
            recordDistinctOnly: true,
          }),
        });
        asyncFailureClients.set(functionLogicalId, sqs);
      }
      const name = destination.split(':').at(-1) ?? '';
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: `${endpoint.url}/${LOCAL_ACCOUNT}/${name}`,
          // What Lambda writes to an on-failure destination of an asynchronous invocation.
          MessageBody: JSON.stringify({
            version: '1.0',
            timestamp: new Date().toISOString(),
            requestContext: {
              requestId: randomUUID(),
              functionArn: fn.functionArn,
              condition: 'RetriesExhausted',
              approximateInvokeCount: failure.attempts,
            },
            requestPayload: event,
            responseContext: {
              statusCode: 200,
              executedVersion: '$LATEST',
              functionError: 'Unhandled',
            },
            responsePayload: { errorMessage: failure.error },
          }),
        }),
      );
      return true;
    };
    stopping.push(async () => {
      for (const client of asyncFailureClients.values()) client.destroy();
    });
    const retriesOf = new Map(
      stack
        .asyncInvokeConfigs()
        .map((config) => [config.functionLogicalId, config.maximumRetryAttempts] as const),
    );
    // Lambda's asynchronous invocations, as SNS and EventBridge make them.
    const asyncInvocation = {
      sendToOnFailure,
      invoke,
      maximumRetryAttemptsOf: (logicalId: string) => retriesOf.get(logicalId) ?? 2,
      ...(options.asyncRetryWaitsMs ? { retryWaitsMs: options.asyncRetryWaitsMs } : {}),
      ...(options.onDeliveryGaveUp ? { onGaveUp: options.onDeliveryGaveUp } : {}),
      ...(options.onDenied ? { onDenied: options.onDenied } : {}),
      ...(options.onStreamError ? { onError: options.onStreamError } : {}),
    };
    // SNS delivering to a subscribed queue: a service, so straight to SQS once the queue's
    // policy allowed it (topic-deliveries.ts checks), not through a role.
    const snsToSqs = new SQSClient({
      endpoint: options.upstreams.sqs,
      region: LOCAL_REGION,
      credentials: { accessKeyId: 'sns', secretAccessKey: 'local' },
    });
    stopping.push(async () => snsToSqs.destroy());
    const topics = startTopicDeliveries({
      ...asyncInvocation,
      topics: stack.topics(),
      subscriptions: stack.topicSubscriptions(),
      permissions: stack.invokePermissionsFor('sns.amazonaws.com'),
      queues: queueDefinitions,
      sendToQueue: async (queueArn, body) => {
        const name = queueArn.split(':').at(-1) ?? '';
        await snsToSqs.send(
          new SendMessageCommand({
            QueueUrl: `${options.upstreams.sqs}/${LOCAL_ACCOUNT}/${name}`,
            MessageBody: body,
          }),
        );
      },
    });
    stopping.push(async () => topics.stop());
    const rules = startRuleSchedules({
      ...asyncInvocation,
      rules: stack.scheduleRules(),
      permissions: stack.invokePermissionsFor('events.amazonaws.com'),
      runSchedules: options.runSchedules ?? true,
    });
    stopping.push(async () => rules.stop());
    let scheduler: LocalScheduler | undefined;
    const groups = stack.ofType('AWS::Scheduler::ScheduleGroup');
    const schedulerClients = new Map<string, SQSClient>();
    stopping.push(async () => {
      for (const client of schedulerClients.values()) client.destroy();
    });
    /**
     * The Scheduler sends a firing it gave up on to the schedule's dead-letter queue with the
     * schedule's role, through the endpoint (which checks that role's policy again).
     */
    const sendScheduleDeadLetter = async (event: DeadLetterEvent): Promise<void> => {
      const role = stack.role(event.roleArn);
      if (!role) throw new Error(`the Scheduler has no role ${event.roleArn}`);
      let sqs = schedulerClients.get(event.roleArn);
      if (!sqs) {
        sqs = new SQSClient({
          endpoint: endpoint.url,
          region: LOCAL_REGION,
          maxAttempts: 3,
          credentials: endpoint.register({
            name: `scheduler (${event.roleArn})`,
            roleArn: role.roleArn,
            policy: role.policy,
          }),
        });
        schedulerClients.set(event.roleArn, sqs);
      }
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: `${endpoint.url}/${LOCAL_ACCOUNT}/${event.queueArn.split(':').at(-1) ?? ''}`,
          MessageBody: event.body,
          MessageAttributes: Object.fromEntries(
            Object.entries(event.attributes).map(([name, value]) => [
              name,
              { DataType: 'String', StringValue: value },
            ]),
          ),
        }),
      );
    };
    if (groups.length > 0) {
      const running = await startLocalScheduler({
        ...asyncInvocation,
        groups: groups.map(([logicalId]) => stack.reference(logicalId)),
        functions: stack.functions(),
        roleOf: (roleArn) => stack.role(roleArn),
        runSchedules: options.runSchedules ?? true,
        ...(options.schedulerNow ? { now: options.schedulerNow } : {}),
        ...(options.schedulesFile ? { file: options.schedulesFile } : {}),
        sendToDeadLetters: (event) => sendScheduleDeadLetter(event),
      });
      scheduler = running;
      // A function that schedules (v2's schedule route) reaches it through the endpoint, with
      // its role's grants checked; the CLI (--local) calls it directly, as the operator.
      endpoint.setUpstream('scheduler', running.url);
      stopping.push(() => running.stop());
    }
    let eventBuses: EventBuses | undefined;
    const busNames = stack.eventBuses();
    if (busNames.length > 0) {
      const running = await startEventBuses({
        buses: busNames,
        rules: stack.patternRules(),
        queues: queueDefinitions,
        // EventBridge delivering to a queue: a service, so straight to SQS once the queue's
        // policy allowed it (event-bus.ts checks), as SNS's deliveries.
        sendToQueue: async (queueArn, body) => {
          const name = queueArn.split(':').at(-1) ?? '';
          await snsToSqs.send(
            new SendMessageCommand({
              QueueUrl: `${options.upstreams.sqs}/${LOCAL_ACCOUNT}/${name}`,
              MessageBody: body,
            }),
          );
        },
        ...(options.onDenied ? { onDenied: options.onDenied } : {}),
        ...(options.onStreamError ? { onError: options.onStreamError } : {}),
      });
      eventBuses = running;
      endpoint.setUpstream('events', running.url);
      stopping.push(() => running.stop());
    }
    let api: ApiGateway | undefined;
    let distribution: LocalDistribution | undefined;
    if (stack.ofType('AWS::ApiGateway::RestApi').length > 0) {
      const front = stack.distribution();
      const deployedApi = stack.api();
      // Behind a distribution the execute-api address is a port of its own; the public one
      // (apiPort) is the distribution's.
      const gateway = await startApiGateway({
        api: deployedApi,
        invoke,
        port: front ? 0 : options.apiPort,
        ...(options.webAclNow ? { now: options.webAclNow } : {}),
      });
      api = gateway;
      stopping.push(() => gateway.stop());
      if (front) {
        const site = options.site?.(stack);
        if (!site) throw new Error('the stack has a distribution: the local cloud needs its site');
        const started = await startLocalDistribution({
          distribution: front,
          apiPort: gateway.port,
          apiHost: `${deployedApi.restApiId}.execute-api.${LOCAL_REGION}.amazonaws.com`,
          site,
          port: options.apiPort,
          ...(options.webAclNow ? { now: options.webAclNow } : {}),
        });
        distribution = started;
        stopping.push(() => started.stop());
      }
    }
    return {
      stack,
      endpoint,
      api,
      distribution,
      tableName,
      functions,
      queues,
      scheduler,
      eventBuses,
      invoke,
      fireRule: (logicalId) => rules.fire(logicalId),
      publishSesEvent: ({ configurationSet, topicArn, message }) =>
        topics.publish(
          {
            servicePrincipal: 'ses.amazonaws.com',
            sourceArn: `arn:aws:ses:${LOCAL_REGION}:${LOCAL_ACCOUNT}:configuration-set/${configurationSet}`,
          },
          topicArn,
          message,
        ),
      settled: async () => {
        // Stream work sends mail, mail produces feedback, feedback writes the table, queued
        // work writes the table and queues more: quiet only when a round of all of them found
        // nothing to wait for.
        for (;;) {
          const round = performance.now();
          await mappings?.settled();
          await queueMappings?.settled();
          const published = await topics.settled();
          const ruled = await rules.settled();
          const bused = (await eventBuses?.settled()) ?? false;
          const fired = ((await scheduler?.settled()) ?? false) || ruled || bused;
          const worked =
            (mappings?.lastWorkEnded ?? 0) > round || (queueMappings?.lastWorkEnded ?? 0) > round;
          if (!published && !fired && !worked) return;
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Creates the stack's table in DynamoDB Local from the template's properties (keys, indexes
 * with their projections, stream, TTL), as CloudFormation would. Properties DynamoDB Local
 * has no use for (deletion protection, recovery, encryption) are left out. An existing table
 * (kept data) is left as it is.
 */
async function createTableOf(
  stack: DeployedStack,
  dynamodbEndpoint: string,
): Promise<{ tableName: string; localStreamArn?: string; streamLabel?: string }> {
  // A stack without a table (a test's small stack) needs no DynamoDB.
  if (stack.ofType('AWS::DynamoDB::Table').length === 0) return { tableName: '' };
  const { tableName, properties: p } = stack.tableDefinition();
  const client = new DynamoDBClient({
    endpoint: dynamodbEndpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'cloudformation', secretAccessKey: 'local' },
  });
  try {
    const indexes = (p.GlobalSecondaryIndexes ?? []) as Record<string, unknown>[];
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: (p.BillingMode as 'PAY_PER_REQUEST') ?? 'PAY_PER_REQUEST',
        AttributeDefinitions: p.AttributeDefinitions as never,
        KeySchema: p.KeySchema as never,
        ...(indexes.length
          ? {
              GlobalSecondaryIndexes: indexes.map((index) => ({
                IndexName: index.IndexName as string,
                KeySchema: index.KeySchema as never,
                Projection: index.Projection as never,
              })),
            }
          : {}),
        ...(p.StreamSpecification
          ? {
              StreamSpecification: {
                StreamEnabled: true,
                StreamViewType: (p.StreamSpecification as { StreamViewType: never }).StreamViewType,
              },
            }
          : {}),
      }),
    );
    const ttl = p.TimeToLiveSpecification as { AttributeName?: string; Enabled?: boolean };
    if (ttl?.Enabled && ttl.AttributeName) {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true },
        }),
      );
    }
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  try {
    const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const { LatestStreamArn, LatestStreamLabel } = described.Table ?? {};
    return {
      tableName,
      ...(LatestStreamArn ? { localStreamArn: LatestStreamArn } : {}),
      ...(LatestStreamLabel ? { streamLabel: LatestStreamLabel } : {}),
    };
  } finally {
    client.destroy();
  }
}

/**
 * Creates the stack's user pools, their groups and app clients in the Cognito stand-in, as
 * CloudFormation would, and answers the ids it gave them by logical id. One that exists already
 * (kept with DATA_DIR) is found by its name and kept, with its people.
 */
async function createUserPoolsOf(
  pools: readonly DeployedUserPool[],
  endpoint: string,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const client = new CognitoIdentityProviderClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'cloudformation', secretAccessKey: 'local' },
  });
  try {
    const existing = (await client.send(new ListUserPoolsCommand({ MaxResults: 60 }))).UserPools;
    for (const pool of pools) {
      let poolId = existing?.find((candidate) => candidate.Name === pool.name)?.Id;
      poolId ??= (
        await client.send(
          new CreateUserPoolCommand({ PoolName: pool.name, ...(pool.properties as object) }),
        )
      ).UserPool?.Id;
      if (!poolId) throw new Error(`the Cognito stand-in made no pool ${pool.name}`);
      ids.set(pool.logicalId, poolId);
      for (const group of pool.groups) {
        await client
          .send(new CreateGroupCommand({ UserPoolId: poolId, GroupName: group }))
          .catch((error: unknown) => {
            if (!(error instanceof GroupExistsException)) throw error;
          });
      }
      const clients = (
        await client.send(new ListUserPoolClientsCommand({ UserPoolId: poolId, MaxResults: 60 }))
      ).UserPoolClients;
      for (const app of pool.clients) {
        let clientId = clients?.find((candidate) => candidate.ClientName === app.name)?.ClientId;
        clientId ??= (
          await client.send(
            new CreateUserPoolClientCommand({
              UserPoolId: poolId,
              ClientName: app.name,
              ...(app.properties as object),
            }),
          )
        ).UserPoolClient?.ClientId;
        if (!clientId) throw new Error(`the Cognito stand-in made no client ${app.name}`);
        ids.set(app.logicalId, clientId);
      }
    }
  } finally {
    client.destroy();
  }
  return ids;
}

/**
 * Creates the stack's SES configuration sets and their event destinations in the local SES, as
 * CloudFormation would; ones that exist already (a stand-in that kept them) are left alone.
 */
async function createConfigurationSetsOf(stack: DeployedStack, sesEndpoint: string): Promise<void> {
  const sets = stack.configurationSets();
  if (sets.length === 0) return;
  const client = new SESClient({
    endpoint: sesEndpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'cloudformation', secretAccessKey: 'local' },
  });
  const unlessExists = (error: unknown): void => {
    const exists =
      error instanceof ConfigurationSetAlreadyExistsException ||
      error instanceof EventDestinationAlreadyExistsException;
    if (!exists) throw error;
  };
  try {
    for (const set of sets) {
      await client
        .send(new CreateConfigurationSetCommand({ ConfigurationSet: { Name: set.name } }))
        .catch(unlessExists);
      for (const destination of set.destinations) {
        await client
          .send(
            new CreateConfigurationSetEventDestinationCommand({
              ConfigurationSetName: set.name,
              EventDestination: {
                Name: destination.name,
                Enabled: destination.enabled,
                MatchingEventTypes: destination.eventTypes as EventType[],
                SNSDestination: { TopicARN: destination.topicArn },
              },
            }),
          )
          .catch(unlessExists);
      }
    }
  } finally {
    client.destroy();
  }
}

/**
 * Creates the stack's queues in the local SQS with the template's attributes, as
 * CloudFormation would: a redrive policy's dead-letter queue first. A queue that exists (kept
 * with DATA_DIR) is updated to the template's attributes, as a stack update would; its
 * messages stay.
 */
async function createQueuesOf(
  definitions: readonly DeployedQueue[],
  sqsEndpoint: string,
  awsEndpoint: string,
): Promise<Map<string, { name: string; arn: string; url: string }>> {
  const queues = new Map<string, { name: string; arn: string; url: string }>();
  if (definitions.length === 0) return queues;
  const client = new SQSClient({
    endpoint: sqsEndpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'cloudformation', secretAccessKey: 'local' },
  });
  const byId = new Map(definitions.map((queue) => [queue.logicalId, queue]));
  const create = async (queue: DeployedQueue): Promise<void> => {
    if (queues.has(queue.logicalId)) return;
    const target = queue.deadLetterQueueLogicalId
      ? byId.get(queue.deadLetterQueueLogicalId)
      : undefined;
    if (target && target !== queue) await create(target);
    try {
      await client.send(
        new CreateQueueCommand({ QueueName: queue.name, Attributes: { ...queue.attributes } }),
      );
    } catch (error) {
      // fauxqs 2.4.1 names this error by the old query code, which the SDK maps to no class.
      const exists =
        error instanceof QueueNameExists ||
        (error instanceof SQSServiceException && error.name.endsWith('QueueNameExists'));
      if (!exists) throw error;
      // FIFO-ness cannot change; CloudFormation replaces such a queue, which we do not.
      const { FifoQueue: _fifo, ...settable } = queue.attributes;
      await client.send(
        new SetQueueAttributesCommand({
          QueueUrl: `${sqsEndpoint}/${LOCAL_ACCOUNT}/${queue.name}`,
          Attributes: settable,
        }),
      );
    }
    queues.set(queue.logicalId, {
      name: queue.name,
      arn: queue.arn,
      url: `${awsEndpoint}/${LOCAL_ACCOUNT}/${queue.name}`,
    });
  };
  try {
    for (const queue of definitions) await create(queue);
  } finally {
    client.destroy();
  }
  return queues;
}

/** A queue's depth as GetQueueAttributes reports it; undefined when there is no such queue. */
async function depthOf(client: SQSClient, queueUrl: string): Promise<QueueDepth | undefined> {
  try {
    const { Attributes = {} } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    return {
      visible: Number(Attributes.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0),
    };
  } catch (error) {
    if (error instanceof QueueDoesNotExist) return undefined;
    throw error;
  }
}
