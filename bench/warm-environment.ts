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
    [ENV.table]: targets.table,
    [ENV.apiKeyParameter]: ENV_DEFAULTS.apiKeyParameter,
    [ENV.settingsParameter]: ENV_DEFAULTS.settingsParameter,
  };
}
