/**
 * The synthesized stack, running on this machine: its table created from the template in
 * DynamoDB Local, each function in its own execution environments with the template's
 * environment and its own credentials, every AWS call checked against the function's role
 * policy by the loopback endpoint, and the REST API served from the template's routes.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { type ApiGateway, startApiGateway } from './api-gateway.ts';
import {
  type AwsEndpoint,
  type Denial,
  type ServiceName,
  startAwsEndpoint,
} from './aws-endpoint.ts';
import { type DeployedFunction, DeployedStack } from './deployed-stack.ts';
import { LOCAL_REGION } from './intrinsics.ts';
import { type CodeSource, type InvocationResult, LambdaHost } from './lambda-host.ts';

/** How to run the stack. */
export interface LocalCloudOptions {
  /** The cdk.out folder `cdk synth` wrote. */
  readonly cdkOut: string;
  /** Run the bundles cdk.out holds, or the TypeScript sources they were built from. */
  readonly code: CodeSource;
  readonly projectRoot: string;
  /** Where the stand-ins listen. */
  readonly upstreams: Record<Exclude<ServiceName, 'sqs'>, string> & { sqs?: string };
  /** Whether an SSM parameter is a SecureString. */
  readonly isSecureParameter: (name: string) => boolean;
  /** API port (0 picks a free one). */
  readonly apiPort: number;
  /** Every line a function writes. */
  readonly onLog: (line: string, fn: DeployedFunction) => void;
  readonly onDenied?: (denial: Denial) => void;
  /** Modules each execution environment imports first (test observers). */
  readonly preload?: readonly string[];
}

/** The running stack. */
export interface LocalCloud {
  readonly stack: DeployedStack;
  readonly endpoint: AwsEndpoint;
  readonly api: ApiGateway;
  /** Physical name of the table. */
  readonly tableName: string;
  readonly functions: ReadonlyMap<string, LambdaHost>;
  /** Invokes a function directly, as an event source would. */
  invoke(logicalId: string, event: unknown): Promise<InvocationResult>;
  stop(): Promise<void>;
}

/** Starts the stack of `cdkOut` against the stand-ins. */
export async function startLocalCloud(options: LocalCloudOptions): Promise<LocalCloud> {
  const endpoint = await startAwsEndpoint({
    upstreams: options.upstreams,
    facts: { isSecureParameter: options.isSecureParameter, queueArn: () => undefined },
    ...(options.onDenied ? { onDenied: options.onDenied } : {}),
  });
  const stopping: (() => Promise<void>)[] = [() => endpoint.stop()];
  const stop = async (): Promise<void> => {
    for (const part of stopping.splice(0).reverse()) await part().catch(() => undefined);
  };
  try {
    const stack = new DeployedStack(options.cdkOut, { endpoint: endpoint.url });
    const tableName = await createTableOf(stack, options.upstreams.dynamodb);
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
    const api = await startApiGateway({ api: stack.api(), invoke, port: options.apiPort });
    stopping.push(() => api.stop());
    return { stack, endpoint, api, tableName, functions, invoke, stop };
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
async function createTableOf(stack: DeployedStack, dynamodbEndpoint: string): Promise<string> {
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
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } finally {
    client.destroy();
  }
  return tableName;
}
