/**
 * The synthesized stack, running on this machine: its table created from the template in
 * DynamoDB Local, its SES configuration sets in the local SES, each function in its own
 * execution environments with the template's environment and its own credentials, every AWS
 * call checked against the function's role policy by the loopback endpoint, the REST API
 * served from the template's routes, and the template's topics delivering what SES publishes
 * to the functions subscribed to them.
 */
import { randomUUID } from 'node:crypto';
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
import { CreateQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type ApiGateway, startApiGateway } from './api-gateway.ts';
import {
  type AwsEndpoint,
  type Denial,
  type ServiceName,
  startAwsEndpoint,
} from './aws-endpoint.ts';
import { type DeployedFunction, DeployedStack } from './deployed-stack.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './intrinsics.ts';
import { type CodeSource, type InvocationResult, LambdaHost } from './lambda-host.ts';
import { type StreamMappings, startStreamMappings } from './stream-mappings.ts';
import { type FailedDelivery, startTopicDeliveries } from './topic-deliveries.ts';

/** How to run the stack. */
export interface LocalCloudOptions {
  /** The cdk.out folder `cdk synth` wrote. */
  readonly cdkOut: string;
  /** Run the bundles cdk.out holds, or the TypeScript sources they were built from. */
  readonly code: CodeSource;
  readonly projectRoot: string;
  /** Where the stand-ins listen. */
  readonly upstreams: Record<ServiceName, string>;
  /** Whether an SSM parameter is a SecureString. */
  readonly isSecureParameter: (name: string) => boolean;
  /** API port (0 picks a free one). */
  readonly apiPort: number;
  /** Every line a function writes. */
  readonly onLog: (line: string, fn: DeployedFunction) => void;
  readonly onDenied?: (denial: Denial) => void;
  /** Modules each execution environment imports first (test observers). */
  readonly preload?: readonly string[];
  /** A failure of an event source mapping's poller (it goes on polling, as Lambda's does). */
  readonly onStreamError?: (error: unknown) => void;
  /**
   * Waits before the two retries of a failed asynchronous invocation (a topic's subscriber);
   * default one and two seconds (Lambda's are about one and two minutes).
   */
  readonly asyncRetryWaitsMs?: readonly number[];
  /** A topic's message whose function failed on every attempt (sent to its on-failure queue when it has one, as on AWS). */
  readonly onDeliveryGaveUp?: (failure: FailedDelivery) => void;
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
  readonly api: ApiGateway;
  /** Physical name of the table. */
  readonly tableName: string;
  readonly functions: ReadonlyMap<string, LambdaHost>;
  /** The stack's queues by logical id: name and URL (at the AWS endpoint). */
  readonly queues: ReadonlyMap<string, { readonly name: string; readonly url: string }>;
  /** Invokes a function directly, as an event source would. */
  invoke(logicalId: string, event: unknown): Promise<InvocationResult>;
  /**
   * SNS receiving what SES publishes for a configuration set: allowed by the topic's policy
   * (SES for that configuration set), delivered to the topic's subscribed functions.
   */
  publishSesEvent(notification: SesEventNotification): void;
  /**
   * Resolves once the stream's event source mappings have delivered everything written so far
   * (keyless requests settled, outbox mails sent or dead-lettered) and the topics everything
   * published to them (SES's feedback applied).
   */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** The queue name of a queue URL (its last path segment). */
const queueNameOf = (url: string): string => url.split('/').at(-1) ?? '';

/** Starts the stack of `cdkOut` against the stand-ins. */
export async function startLocalCloud(options: LocalCloudOptions): Promise<LocalCloud> {
  const endpoint = await startAwsEndpoint({
    upstreams: options.upstreams,
    facts: {
      isSecureParameter: options.isSecureParameter,
      queueArn: (url) =>
        url ? `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${queueNameOf(url)}` : undefined,
    },
    ...(options.onDenied ? { onDenied: options.onDenied } : {}),
  });
  const stopping: (() => Promise<void>)[] = [() => endpoint.stop()];
  const stop = async (): Promise<void> => {
    for (const part of stopping.splice(0).reverse()) await part().catch(() => undefined);
  };
  try {
    const template = new DeployedStack(options.cdkOut, { endpoint: endpoint.url });
    const table = await createTableOf(template, options.upstreams.dynamodb);
    const tableName = table.tableName;
    const stack = table.streamLabel
      ? template.withIds({ streamLabel: table.streamLabel })
      : template;
    const queues = await createQueuesOf(stack, options.upstreams.sqs, endpoint.url);
    await createConfigurationSetsOf(stack, options.upstreams.ses);
    const functions = new Map<string, LambdaHost>();
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
          ...(options.preload ? { preload: options.preload } : {}),
        }),
      );
    }
    stopping.push(() => Promise.all([...functions.values()].map((host) => host.stop())).then());
    const invoke = (logicalId: string, event: unknown): Promise<InvocationResult> => {
      const host = functions.get(logicalId);
      if (!host) throw new Error(`no function ${logicalId} in the stack`);
      return host.invoke(event);
    };
    let mappings: StreamMappings | undefined;
    const streamMappings = stack.streamMappings();
    if (streamMappings.length > 0) {
      if (!table.localStreamArn)
        throw new Error('event source mappings, but the table has no stream');
      const byId = new Map(stack.functions().map((fn) => [fn.logicalId, fn]));
      mappings = startStreamMappings({
        mappings: streamMappings,
        localStreamArn: table.localStreamArn,
        invoke,
        // The Lambda service reads the stream with the function's role, as a caller of its own
        // so that its calls are told apart from the function's.
        credentialsOf: (mapping) => {
          const fn = byId.get(mapping.functionLogicalId);
          if (!fn) throw new Error(`no function ${mapping.functionLogicalId} in the stack`);
          return endpoint.register({
            name: `${fn.functionName} (event source mapping)`,
            roleArn: fn.roleArn,
            policy: fn.policy,
            recordDistinctOnly: true,
          });
        },
        endpoint: endpoint.url,
        queueUrlOf: (arn) => {
          const name = arn.split(':').at(-1) ?? '';
          return `${endpoint.url}/${LOCAL_ACCOUNT}/${name}`;
        },
        functionArnOf: (logicalId) => byId.get(logicalId)?.functionArn ?? logicalId,
        ...(options.onStreamError ? { onError: options.onStreamError } : {}),
      });
      const running = mappings;
      stopping.push(() => running.stop());
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
    const topics = startTopicDeliveries({
      sendToOnFailure,
      topics: stack.topics(),
      subscriptions: stack.topicSubscriptions(),
      permissions: stack.invokePermissionsFor('sns.amazonaws.com'),
      invoke,
      ...(options.asyncRetryWaitsMs ? { retryWaitsMs: options.asyncRetryWaitsMs } : {}),
      ...(options.onDenied ? { onDenied: options.onDenied } : {}),
      ...(options.onDeliveryGaveUp ? { onGaveUp: options.onDeliveryGaveUp } : {}),
      ...(options.onStreamError ? { onError: options.onStreamError } : {}),
    });
    stopping.push(async () => topics.stop());
    const api = await startApiGateway({ api: stack.api(), invoke, port: options.apiPort });
    stopping.push(() => api.stop());
    return {
      stack,
      endpoint,
      api,
      tableName,
      functions,
      queues,
      invoke,
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
        // Stream work sends mail, mail produces feedback, feedback writes the table: quiet
        // only when a round of both found nothing to wait for.
        for (;;) {
          await mappings?.settled();
          if (!(await topics.settled())) return;
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

/** Creates the stack's queues in the SQS stand-in, as CloudFormation would. */
async function createQueuesOf(
  stack: DeployedStack,
  sqsEndpoint: string,
  awsEndpoint: string,
): Promise<Map<string, { name: string; url: string }>> {
  const queues = new Map<string, { name: string; url: string }>();
  const definitions = stack.queues();
  if (definitions.length === 0) return queues;
  const client = new SQSClient({
    endpoint: sqsEndpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'cloudformation', secretAccessKey: 'local' },
  });
  try {
    for (const queue of definitions) {
      await client.send(new CreateQueueCommand({ QueueName: queue.name }));
      queues.set(queue.logicalId, {
        name: queue.name,
        url: `${awsEndpoint}/${LOCAL_ACCOUNT}/${queue.name}`,
      });
    }
  } finally {
    client.destroy();
  }
  return queues;
}
