import { ENV, ENV_DEFAULTS } from '../../shared/runtime/environment.ts';

/** Where the stand-ins listen, and the table the functions use. */
export interface LocalTargets {
  readonly dynamodb: string;
  readonly ses: string;
  readonly ssm: string;
  readonly table: string;
}

/**
 * The environment that points unchanged function code at the local stand-ins: fake
 * credentials, the SDK's per-service endpoint variables, and our own variables with their
 * default parameter names. `npm start` applies it to its own process, the bench to a child.
 */
export function localEnvironment(targets: LocalTargets): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: targets.dynamodb,
    AWS_ENDPOINT_URL_SES: targets.ses,
    AWS_ENDPOINT_URL_SSM: targets.ssm,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    [ENV.table]: targets.table,
    [ENV.apiKeyParameter]: ENV_DEFAULTS.apiKeyParameter,
    [ENV.settingsParameter]: ENV_DEFAULTS.settingsParameter,
  };
}
