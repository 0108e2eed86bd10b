import { relative } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  Effect,
  PolicyDocument,
  PolicyStatement,
  Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type CfnFunction,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
  Runtime,
} from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** What differs between the functions; everything else is a shared default below. */
export interface NewsletterFunctionProps {
  /** Handler file (`functions/<name>.ts`) exporting `handler`. */
  readonly entry: string;
  /** Repository root: holds package.json, package-lock.json and tsconfig.json. */
  readonly projectRoot: string;
  readonly description: string;
  readonly environment: Readonly<Record<string, string>>;
  /** Everything the function may do besides writing its own log. */
  readonly statements: readonly PolicyStatement[];
  readonly logRetention: RetentionDays;
  /** Whether the function reads SSM parameters (through the Parameters and Secrets extension). */
  readonly readsParameters: boolean;
  /** How long an invocation may run (default 10 s). */
  readonly timeout?: Duration;
  /** Memory (MB) and with it the CPU share (default 256; the campaign workers' is sized). */
  readonly memorySize?: number;
}

/**
 * The AWS Parameters and Secrets Lambda Extension, for functions that read the API key or the
 * settings: it fetches them as the function's role, so no SSM client is bundled
 * (shared/adapters/parameters/extension-source.ts). Its cache is off: CachedParameters keeps
 * the values for the configured lifetime, so a rotated key takes effect when the docs say.
 */
export const PARAMETERS_EXTENSION = ParamsAndSecretsLayerVersion.fromVersion(
  ParamsAndSecretsVersions.V1_0_103,
  { cacheEnabled: false, logLevel: ParamsAndSecretsLogLevel.WARN },
);

/**
 * Lambda runtime. The newest Node.js runtime Lambda offers (cdk-nag AwsSolutions-L1 asks for
 * it); the bundle targets node22 (below), so it also runs unchanged on nodejs22.x.
 */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;

/** Syntax level of the bundle: node22, so the same bundle also runs on nodejs22.x. */
const BUNDLE_TARGET = 'node22';

// ESM bundles of CommonJS dependencies call `require`, which ESM does not define.
const CREATE_REQUIRE_BANNER =
  "import { createRequire as __newsletterCreateRequire } from 'node:module'; " +
  'const require = __newsletterCreateRequire(import.meta.url);';

/**
 * Source maps are built (cdk.out keeps them next to each bundle, to read a stack trace against)
 * but not enabled at run time: `--enable-source-maps` parses the map on every cold start, about
 * 7 ms and 0.2× of the reference's init (docs/benchmarks.md, Decisions). Traces keep readable
 * function and class names (`keepNames`).
 */
export const SOURCE_MAPS_AT_RUN_TIME = '--enable-source-maps';

/**
 * How every function is bundled. Exported so that the benchmarks (bench/) build exactly the
 * bundles CDK deploys, from these options rather than from a copy of them.
 */
export const FUNCTION_BUNDLING: BundlingOptions = {
  // Docker is not available on our machines; the installed esbuild does the same job.
  forceDockerBundling: false,
  format: OutputFormat.ESM,
  target: BUNDLE_TARGET,
  minify: true,
  // Error classes and the SDK's exceptions are told apart by name in logs.
  keepNames: true,
  sourceMap: true,
  // Stack traces need the mappings, not a second copy of every source file.
  sourcesContent: false,
  // Bundling the SDK (as ESM, tree-shaken) starts faster than loading the runtime's copy.
  externalModules: [],
  mainFields: ['module', 'main'],
  banner: CREATE_REQUIRE_BANNER,
  // Environment credentials only: what Lambda provides (infra/cdk/bundling/lambda-credentials.ts).
  // CDK passes this to esbuild as `--alias:…`; the path is relative to the project root.
  esbuildArgs: {
    '--alias': '@aws-sdk/credential-provider-node=./infra/cdk/bundling/lambda-credentials.ts',
  },
};

/**
 * One Lambda function of the API with the defaults every function shares: ESM bundle built by
 * the local esbuild (never Docker) with the AWS SDK inside, arm64, source-mapped stack traces,
 * its own log group with retention, and a role that can do exactly `statements` and log.
 *
 * The log group and role are created beside the function (in `scope`), because they must exist
 * before `super()` runs; their ids start with the function's id.
 */
export class NewsletterFunction extends NodejsFunction {
  /** The function's own role (inline policy: its log group plus `statements`). */
  readonly executionRole: Role;

  constructor(scope: Construct, id: string, props: NewsletterFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention,
      // Logs have their own retention; keeping the group after a teardown only leaves clutter.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // An own role instead of the default one: the default attaches the AWS-managed basic
    // execution policy, which may create any log group and write to all of them.
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${id}: ${props.description}`.slice(0, 1000),
      inlinePolicies: {
        access: new PolicyDocument({
          statements: [
            new PolicyStatement({
              sid: 'Logs',
              effect: Effect.ALLOW,
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [logGroup.logGroupArn],
            }),
            ...props.statements,
          ],
        }),
      },
    });
    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      description: props.description,
      runtime: FUNCTION_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      // API Gateway gives up after 29 s; a stuck dependency should fail well before that.
      timeout: props.timeout ?? Duration.seconds(10),
      role,
      logGroup,
      environment: { ...props.environment },
      bundling: FUNCTION_BUNDLING,
      ...(props.readsParameters ? { paramsAndSecrets: PARAMETERS_EXTENSION } : {}),
    });
    this.executionRole = role;
    // Where the bundle came from: the local cloud's source mode runs this file instead of it.
    (this.node.defaultChild as CfnFunction).addMetadata(
      'newsletter:entry',
      relative(props.projectRoot, props.entry),
    );
  }
}
