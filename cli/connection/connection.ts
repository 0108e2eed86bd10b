import { ENV, ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import type { CliIo } from '../io.ts';
import { DEFAULT_DATA_DIR, localEndpointsPath, readLocalEndpoints } from './local-endpoints.ts';

/** The connection options every command accepts (set on the program, usable after the command). */
export interface ConnectionOptions {
  readonly table?: string;
  readonly region?: string;
  readonly endpointDynamodb?: string;
  readonly endpointSsm?: string;
  readonly apiKeyParameter?: string;
  readonly settingsParameter?: string;
  readonly local?: boolean;
  readonly dataDir?: string;
  readonly deadLetterQueue?: string;
  readonly campaignQueue?: string;
  readonly apiRoot?: string;
}

/** Where the commands read and write: resolved once per run. */
export interface Connection {
  /** Undefined when nothing names a table; only the DynamoDB commands need one. */
  readonly table?: string;
  /** Undefined: the SDK's chain decides (AWS_REGION, the profile). */
  readonly region?: string;
  /** Undefined: the SDK's default (AWS_ENDPOINT_URL_DYNAMODB, or AWS itself). */
  readonly dynamodbEndpoint?: string;
  readonly ssmEndpoint?: string;
  /** SES, for the account's quota (`GetSendQuota`): the local SES under `--local`. */
  readonly sesEndpoint?: string;
  /** URL of the mailer's dead-letter queue (the stack's MailDeadLetters output). */
  readonly mailDeadLetters?: string;
  /** URL of the campaign planner's queue (the stack's CampaignQueue output). */
  readonly campaignQueue?: string;
  /** `{api_root}` of the API, for links in campaign mails when the settings name none. */
  readonly apiRoot?: string;
  /** Where scheduled sends go (the stack's CampaignSchedule* outputs). */
  readonly scheduler?: SchedulerConnection;
  /** The console's user pool (the stack's ConsoleUserPoolId output), for `people`. */
  readonly people?: { readonly endpoint?: string; readonly userPoolId: string };
  readonly apiKeyParameter: string;
  readonly settingsParameter: string;
  /** Fixed credentials for the local stand-ins; undefined: the standard credential chain. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Says where the configuration came from, for error messages. */
  readonly description: string;
}

/** EventBridge Scheduler as the CLI reaches it: the stack's group, target, role and dead letters. */
export interface SchedulerConnection {
  /** Undefined: AWS itself; the local scheduler under `--local`. */
  readonly endpoint?: string;
  readonly group: string;
  readonly functionArn: string;
  readonly roleArn: string;
  readonly deadLetterArn: string;
}

/** Credentials the local stand-ins accept: DynamoDB Local checks a signature, not who made it. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const LOCAL_REGION = 'us-east-1';

/**
 * Resolves the connection. Flags win; then, with `--local`, the endpoints file `npm start`
 * wrote (the NEWSLETTER_* variables are ignored there: they describe a deployment); otherwise
 * the variables the functions themselves read, then the defaults of the deployment.
 */
export async function resolveConnection(
  options: ConnectionOptions,
  io: Pick<CliIo, 'env' | 'cwd'>,
): Promise<Connection> {
  if (options.local) {
    const dataDir = options.dataDir || io.env.DATA_DIR || DEFAULT_DATA_DIR;
    const local = await readLocalEndpoints(dataDir, io.cwd);
    return {
      table: options.table ?? local.table,
      region: options.region ?? LOCAL_REGION,
      dynamodbEndpoint: options.endpointDynamodb ?? local.dynamodb,
      ssmEndpoint: options.endpointSsm ?? local.ssm,
      ...(local.ses ? { sesEndpoint: local.ses } : {}),
      ...((options.deadLetterQueue ?? local.mail_dead_letters)
        ? { mailDeadLetters: options.deadLetterQueue ?? local.mail_dead_letters }
        : {}),
      ...((options.campaignQueue ?? local.campaign_queue)
        ? { campaignQueue: options.campaignQueue ?? local.campaign_queue }
        : {}),
      ...((options.apiRoot ?? local.api_root)
        ? { apiRoot: options.apiRoot ?? local.api_root }
        : {}),
      ...(local.scheduler
        ? {
            scheduler: {
              endpoint: local.scheduler.endpoint,
              group: local.scheduler.group,
              functionArn: local.scheduler.target,
              roleArn: local.scheduler.role,
              deadLetterArn: local.scheduler.dead_letters,
            },
          }
        : {}),
      ...(local.people
        ? { people: { endpoint: local.people.endpoint, userPoolId: local.people.user_pool_id } }
        : {}),
      apiKeyParameter:
        options.apiKeyParameter ?? local.api_key_parameter ?? ENV_DEFAULTS.apiKeyParameter,
      settingsParameter:
        options.settingsParameter ?? local.settings_parameter ?? ENV_DEFAULTS.settingsParameter,
      credentials: LOCAL_CREDENTIALS,
      description: `the local service (${localEndpointsPath(dataDir, io.cwd)})`,
    };
  }
  const table = options.table ?? (io.env[ENV.table] || undefined);
  return {
    ...(table ? { table } : {}),
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpointDynamodb ? { dynamodbEndpoint: options.endpointDynamodb } : {}),
    ...(options.endpointSsm ? { ssmEndpoint: options.endpointSsm } : {}),
    ...((options.deadLetterQueue ?? io.env.NEWSLETTER_MAIL_DEAD_LETTERS)
      ? { mailDeadLetters: options.deadLetterQueue ?? io.env.NEWSLETTER_MAIL_DEAD_LETTERS }
      : {}),
    ...((options.campaignQueue ?? io.env[ENV.campaignPlans])
      ? { campaignQueue: options.campaignQueue ?? io.env[ENV.campaignPlans] }
      : {}),
    ...((options.apiRoot ?? io.env.NEWSLETTER_API_ROOT)
      ? { apiRoot: options.apiRoot ?? io.env.NEWSLETTER_API_ROOT }
      : {}),
    ...schedulerFrom(io.env),
    ...(io.env[ENV.userPoolId] ? { people: { userPoolId: io.env[ENV.userPoolId] ?? '' } } : {}),
    apiKeyParameter:
      options.apiKeyParameter ?? (io.env[ENV.apiKeyParameter] || ENV_DEFAULTS.apiKeyParameter),
    settingsParameter:
      options.settingsParameter ??
      (io.env[ENV.settingsParameter] || ENV_DEFAULTS.settingsParameter),
    description: 'AWS (standard credential chain)',
  };
}

/** The scheduler of a deployment, from the variables the function class reads too. */
function schedulerFrom(env: NodeJS.ProcessEnv): { scheduler?: SchedulerConnection } {
  const group = env[ENV.scheduleGroup];
  const functionArn = env[ENV.scheduleTarget];
  const roleArn = env[ENV.scheduleRole];
  const deadLetterArn = env[ENV.scheduleDeadLetters];
  return group && functionArn && roleArn && deadLetterArn
    ? { scheduler: { group, functionArn, roleArn, deadLetterArn } }
    : {};
}
