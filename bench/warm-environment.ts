import { EXTENSION_PORT_VARIABLE } from '../infra/local/cloud/parameters-extension.ts';
import { ENV, ENV_DEFAULTS } from '../shared/runtime/environment.ts';

/** Where the stand-ins listen, and the table the functions use. */
export interface LocalTargets {
  readonly dynamodb: string;
  readonly ses: string;
  /** The port of the Parameters and Secrets extension stand-in. */
  readonly parametersExtensionPort: number;
  readonly table: string;
}

/**
 * The variables of the stack the functions may read when loaded, besides the table, the
 * parameters and the configuration sets: a campaign route's queues, the scheduler's targets
 * and the console's user pool, with values of the shape the stack gives them (no call of the
 * benchmarks reaches them).
 */
export const STACK_VARIABLES: Readonly<Record<string, string>> = {
  [ENV.campaignPlans]: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench-plans.fifo',
  [ENV.campaignSends]: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench-sends',
  [ENV.campaignWorkers]: '2',
  [ENV.scheduleGroup]: 'bench',
  [ENV.scheduleTarget]: 'arn:aws:lambda:us-east-1:123456789012:function:bench-starter',
  [ENV.scheduleRole]: 'arn:aws:iam::123456789012:role/bench-scheduler',
  [ENV.scheduleDeadLetters]: 'arn:aws:sqs:us-east-1:123456789012:bench-schedule-dead-letters',
  [ENV.userPoolId]: 'us-east-1_bench',
  [ENV.userPoolClientId]: 'bench',
  [ENV.cognitoIssuerDomain]: 'https://cognito-idp.us-east-1.amazonaws.com',
};

/**
 * The environment a function's process starts with, as far as module loading cares: the
 * functions read their environment when loaded, as the stack sets it.
 */
export function lambdaEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    [ENV.table]: 'bench',
    [ENV.configurationSet]: 'bench',
    [ENV.campaignConfigurationSet]: 'bench-campaign',
    [ENV.trackedConfigurationSet]: 'bench-tracked',
    [ENV.trackedDeliveriesConfigurationSet]: 'bench-tracked-deliveries',
    ...STACK_VARIABLES,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/** The session token the handlers present to the extension stand-in. */
export const WARM_CREDENTIALS = {
  accessKeyId: 'local',
  secretAccessKey: 'local',
  sessionToken: 'local',
} as const;

/**
 * The environment that points unchanged function code at the local stand-ins for the warm
 * run: fake credentials, the SDK's per-service endpoint variables, the extension's port, and
 * our own variables with their default parameter names.
 */
export function localEnvironment(targets: LocalTargets): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: WARM_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: WARM_CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: WARM_CREDENTIALS.sessionToken,
    AWS_ENDPOINT_URL_DYNAMODB: targets.dynamodb,
    AWS_ENDPOINT_URL_SES: targets.ses,
    [EXTENSION_PORT_VARIABLE]: String(targets.parametersExtensionPort),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...STACK_VARIABLES,
    [ENV.table]: targets.table,
    [ENV.apiKeyParameter]: ENV_DEFAULTS.apiKeyParameter,
    [ENV.settingsParameter]: ENV_DEFAULTS.settingsParameter,
  };
}
