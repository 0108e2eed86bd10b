/**
 * Environment variables the domain layer reads. The CDK stack sets them on every function, the
 * local runner sets them for its in-process handlers, and another Lambda that imports the
 * function class sets them itself. Read once, when first needed, and fail loudly when missing.
 */

/** Names of the environment variables, in one place for the stack, the runner and the docs. */
export const ENV = {
  /** DynamoDB table holding subscribers, tokens, newsletters and counters. */
  table: 'NEWSLETTER_TABLE',
  /** SSM parameter (SecureString) holding the API key. */
  apiKeyParameter: 'NEWSLETTER_API_KEY_PARAMETER',
  /** SSM parameter (String, JSON) holding the operator settings. */
  settingsParameter: 'NEWSLETTER_SETTINGS_PARAMETER',
  /** Seconds the key and the settings are cached in a warm function (default 300). */
  parameterCacheSeconds: 'NEWSLETTER_PARAMETER_CACHE_SECONDS',
  /** A stream consumer's first wait after a failed record, doubling each time (default 1000). */
  streamRetryBaseMs: 'NEWSLETTER_STREAM_RETRY_BASE_MS',
  /** The mailer's SES configuration set: its event destination feeds bounces and complaints back. */
  configurationSet: 'NEWSLETTER_SES_CONFIGURATION_SET',
  /** The set campaign mail names for a recipient with no bounce counted: no delivery events. */
  campaignConfigurationSet: 'NEWSLETTER_SES_CAMPAIGN_CONFIGURATION_SET',
  /** The set tracked campaign mail names (opens and clicks; no deliveries). */
  trackedConfigurationSet: 'NEWSLETTER_SES_TRACKED_CONFIGURATION_SET',
  /** The tracked set with delivery events, for a recipient with bounces counted. */
  trackedDeliveriesConfigurationSet: 'NEWSLETTER_SES_TRACKED_DELIVERIES_CONFIGURATION_SET',
  /** URL of the campaign planner's FIFO queue: `send`, `resume` and the planner queue work there. */
  campaignPlans: 'NEWSLETTER_CAMPAIGN_PLANS_QUEUE',
  /** URL of the campaign workers' queue of recipients to send to. */
  campaignSends: 'NEWSLETTER_CAMPAIGN_SENDS_QUEUE',
  /** How many workers may send at once (the workers' event source mapping's maximum concurrency). */
  campaignWorkers: 'NEWSLETTER_CAMPAIGN_WORKERS',
  /** EventBridge Scheduler group scheduled sends go in (the stack's CampaignScheduleGroup output). */
  scheduleGroup: 'NEWSLETTER_SCHEDULE_GROUP',
  /** ARN of the function a schedule invokes (the stack's CampaignScheduleTarget output). */
  scheduleTarget: 'NEWSLETTER_SCHEDULE_TARGET',
  /** ARN of the role EventBridge Scheduler invokes it with (the stack's CampaignScheduleRole output). */
  scheduleRole: 'NEWSLETTER_SCHEDULE_ROLE',
  /** ARN of the queue of firings that did not start (the stack's CampaignScheduleDeadLetters output). */
  scheduleDeadLetters: 'NEWSLETTER_SCHEDULE_DEAD_LETTERS',
  /** The console's Cognito user pool: whose ID tokens a v2 route accepts, whom `people` manages. */
  userPoolId: 'NEWSLETTER_USER_POOL_ID',
  /** The console's app client: the audience of the ID tokens a v2 route accepts. */
  userPoolClientId: 'NEWSLETTER_USER_POOL_CLIENT_ID',
  /**
   * Where the pool's tokens are issued, without the pool id; default Cognito's own
   * `https://cognito-idp.{region}.amazonaws.com`. Only the local cloud sets it (to its Cognito
   * stand-in), as it sets AWS_ENDPOINT_URL: the stack never does.
   */
  cognitoIssuerDomain: 'NEWSLETTER_COGNITO_ISSUER_DOMAIN',
} as const;

/** Defaults used where an operator sets nothing. */
export const ENV_DEFAULTS = {
  apiKeyParameter: '/newsletter/api-key',
  settingsParameter: '/newsletter/settings',
  parameterCacheSeconds: 300,
  streamRetryBaseMs: 1000,
} as const;

/** Configuration of the domain layer as read from the environment. */
export interface Environment {
  readonly tableName: string;
  readonly apiKeyParameter: string;
  readonly settingsParameter: string;
  readonly parameterCacheMs: number;
  readonly streamRetryBaseMs: number;
}

/** Reads the environment; throws naming the variable when one is missing or malformed. */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const tableName = env[ENV.table];
  if (!tableName) {
    throw new Error(`Environment variable ${ENV.table} (the DynamoDB table name) is not set`);
  }
  const cacheText = env[ENV.parameterCacheSeconds];
  const cacheSeconds =
    cacheText === undefined ? ENV_DEFAULTS.parameterCacheSeconds : Number(cacheText);
  if (!Number.isFinite(cacheSeconds) || cacheSeconds < 0) {
    throw new Error(
      `Environment variable ${ENV.parameterCacheSeconds} must be a number of seconds`,
    );
  }
  const retryText = env[ENV.streamRetryBaseMs];
  const streamRetryBaseMs =
    retryText === undefined ? ENV_DEFAULTS.streamRetryBaseMs : Number(retryText);
  if (!Number.isFinite(streamRetryBaseMs) || streamRetryBaseMs < 0) {
    throw new Error(`Environment variable ${ENV.streamRetryBaseMs} must be a number of ms`);
  }
  return {
    tableName,
    streamRetryBaseMs,
    apiKeyParameter: env[ENV.apiKeyParameter] || ENV_DEFAULTS.apiKeyParameter,
    settingsParameter: env[ENV.settingsParameter] || ENV_DEFAULTS.settingsParameter,
    parameterCacheMs: cacheSeconds * 1000,
  };
}

/**
 * The SES configuration set the mailer names on every send, without which no bounce or
 * complaint would come back; throws naming the variable when it is not set.
 */
export function readConfigurationSet(
  env: NodeJS.ProcessEnv = process.env,
  variable:
    | typeof ENV.configurationSet
    | typeof ENV.campaignConfigurationSet
    | typeof ENV.trackedConfigurationSet
    | typeof ENV.trackedDeliveriesConfigurationSet = ENV.configurationSet,
): string {
  const name = env[variable];
  if (!name) {
    throw new Error(`Environment variable ${variable} (an SES configuration set) is not set`);
  }
  return name;
}

/** Where a campaign's work is queued, and by how many workers it is sent. */
export interface CampaignEnvironment {
  readonly plansQueue: string;
  /** Undefined where only planner work is queued (the function class of another Lambda). */
  readonly sendsQueue?: string;
  readonly workers: number;
}

/** Reads the campaign variables; throws naming the variable when one is missing or malformed. */
export function readCampaignEnvironment(env: NodeJS.ProcessEnv = process.env): CampaignEnvironment {
  const plansQueue = env[ENV.campaignPlans];
  if (!plansQueue) {
    throw new Error(
      `Environment variable ${ENV.campaignPlans} (the campaign planner's queue URL) is not set`,
    );
  }
  const workersText = env[ENV.campaignWorkers];
  const workers = workersText === undefined ? 2 : Number(workersText);
  if (!Number.isInteger(workers) || workers < 1) {
    throw new Error(
      `Environment variable ${ENV.campaignWorkers} must be a whole number of workers`,
    );
  }
  const sendsQueue = env[ENV.campaignSends];
  return { plansQueue, workers, ...(sendsQueue ? { sendsQueue } : {}) };
}

/**
 * Where scheduled sends go: the stack's schedule group, the starter function, the role, and the
 * queue a firing that could not be delivered goes to.
 */
export interface SchedulerEnvironment {
  readonly group: string;
  readonly functionArn: string;
  readonly roleArn: string;
  readonly deadLetterArn: string;
}

/** Reads the scheduler variables; throws naming the first one missing. */
export function readSchedulerEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): SchedulerEnvironment {
  const read = (name: string, what: string): string => {
    const value = env[name];
    if (!value) throw new Error(`Environment variable ${name} (${what}) is not set`);
    return value;
  };
  return {
    group: read(ENV.scheduleGroup, 'the schedule group'),
    functionArn: read(ENV.scheduleTarget, "the campaign starter's ARN"),
    roleArn: read(ENV.scheduleRole, "the scheduler role's ARN"),
    deadLetterArn: read(ENV.scheduleDeadLetters, "the schedules' dead-letter queue ARN"),
  };
}
