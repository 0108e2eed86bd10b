import { resolve } from 'node:path';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { RATE_WINDOWS, type RateLimits } from './client-limits.ts';

/** Repository root: a relative consoleDir is read from here. */
const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * What an operator chooses at deploy time, read from CDK context (`-c key=value` or the
 * `context` block of cdk.json). Everything the subscription process needs at run time (lists,
 * sender address, admin address, texts) lives in the settings parameter instead, so changing it
 * needs no deploy.
 */
export interface NewsletterConfig {
  /** CloudFormation stack name; two deployments in one account need two names. */
  readonly stackName: string;
  /** API Gateway stage name = the `{prefix}` of `{api_root}` (`api`, or `wp-json` for old clients). */
  readonly stage: string;
  /**
   * Origins whose pages may read the public routes' answers (CORS): `*` (any, the default)
   * or a list such as `https://example.com,https://www.example.com`.
   */
  readonly corsOrigins: '*' | readonly string[];
  /** Verified SES identity (domain or address) the sender address in the settings belongs to. */
  readonly senderIdentity: string;
  /** Verified recipient addresses SES checks as well while the account is in the sandbox. */
  readonly sandboxRecipients: readonly string[];
  /** SSM SecureString parameter holding the API key. */
  readonly apiKeyParameter: string;
  /** SSM String parameter holding the settings JSON. */
  readonly settingsParameter: string;
  /** How long a warm function keeps the key and the settings before reading them again. */
  readonly parameterCacheSeconds: number;
  /**
   * The built console the stack deploys (`consoleDir`, default console/dist, which
   * `npm run build:console` writes; `npm run synth` and `npm run deploy` build it first).
   */
  readonly consoleDir: string;
  /**
   * Optional custom domain of the distribution (console and API); the stage stays the first
   * path segment (`/api/newsletter/v1`). CloudFront takes certificates from us-east-1 only.
   */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
  /** Keep the table when the stack is deleted or the table replaced. */
  readonly retain: boolean;
  /** DynamoDB deletion protection: the table cannot be deleted, not even by CloudFormation. */
  readonly deletionProtection: boolean;
  /** Each method's steady request rate (requests per second) before API Gateway answers 429. */
  readonly throttleRate: number;
  /** Each method's burst (concurrent requests) before API Gateway answers 429. */
  readonly throttleBurst: number;
  /**
   * The sign-up methods' own throttle (v1 `POST /subscribe`, v2 `POST /subscriptions`), and the
   * unsubscribe page's (GET and POST, one-click included): buckets of their own, so a flood of
   * one never answers 429 to the other ([http.client-limits]).
   */
  readonly signUpThrottle: { readonly rate: number; readonly burst: number };
  readonly unsubscribeThrottle: { readonly rate: number; readonly burst: number };
  /**
   * Requests one client address may send per window before AWS WAF answers 429, at the
   * distribution and at the API's stage: sign-up, unsubscribe, everything else.
   */
  readonly clientLimits: RateLimits;
  /**
   * The generation of the origin secret CloudFront sends the API (1, 2, …); deploying the next
   * number rotates it ([http.front-door]). Keep it in cdk.json once raised.
   */
  readonly originSecretGeneration: number;
  /**
   * A CloudFront-scoped web ACL made elsewhere (the edge stack, `-c edgeStack=true`, in
   * us-east-1) for the distribution; without it the stack makes its own when deployed in
   * us-east-1, where CloudFront-scoped web ACLs live.
   */
  readonly distributionWebAclArn?: string;
  /** Days CloudWatch keeps function and access logs; one of the values CloudWatch allows. */
  readonly logRetentionDays: number;
  /**
   * Whether this stack sets the account-wide API Gateway CloudWatch role (needed for access
   * logs). Set false when another stack in the account and region already manages it.
   */
  readonly apiGatewayCloudWatchRole: boolean;
  /** An existing SNS topic the alarms notify (docs/deploy.md, "Operating"); none by default. */
  readonly alarmTopicArn?: string;
  /** A stream consumer's first wait after a failed record (ms); it doubles each time. */
  readonly streamRetryBaseMs: number;
  /**
   * The highest rate a campaign is meant to send at (mails per second, all workers together):
   * the settings' `campaign.rate`, or 80% of the account's SES MaxSendRate. The campaign
   * workers and their memory are derived from it (infra/cdk/worker-sizing.ts).
   */
  readonly campaignMaxRate: number;
  /**
   * Campaign workers that may send at once (the workers' event source mapping's maximum
   * concurrency, at least 2), when set; derived from `campaignMaxRate` otherwise. Each sends
   * its share of the campaign's rate.
   */
  readonly campaignWorkers?: number;
  /** Memory of each campaign worker (MB), when set; derived from `campaignMaxRate` otherwise. */
  readonly campaignWorkerMemory?: number;
  /** How long a campaign function may run; its queue hides a message twice as long. */
  readonly campaignTimeoutSeconds: number;
  /**
   * Optional custom domain SES's open pixel and click redirects use instead of SES's own
   * (`TrackingOptions.CustomRedirectDomain`, HTTPS required): a subdomain verified in SES,
   * served over HTTPS by CloudFront (docs/deploy.md, "Opens and clicks").
   */
  readonly trackingDomain?: string;
}

/** The deployment context is incomplete or wrong; the message names every problem. */
export class DeploymentContextError extends Error {
  override readonly name = 'DeploymentContextError';
}

/** Reads one context value; `app.node.tryGetContext` in the app, a plain object in tests. */
export type ContextReader = (key: string) => unknown;

/** Retention periods CloudWatch Logs accepts (days). */
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
];

const DEFAULTS = {
  stackName: 'Newsletter',
  stage: 'api',
  throttleRate: 50,
  throttleBurst: 100,
  // A form is posted once per person; a flood from many addresses stops here, not at Lambda.
  signUpThrottleRate: 20,
  signUpThrottleBurst: 40,
  // After a campaign, mailbox providers' one-click POSTs come in waves.
  unsubscribeThrottleRate: 100,
  unsubscribeThrottleBurst: 200,
  // Per client address and 5 minutes: sign-ups well above the app's own limit (20 in 10
  // minutes), whose answer is the friendlier; one-click from a mailbox provider's few
  // addresses; the console and API clients paging through lists.
  wafSignUpLimit: 100,
  wafUnsubscribeLimit: 1_000,
  wafApiLimit: 2_000,
  wafWindowSeconds: 300,
  logRetentionDays: 30,
  // What a campaign of a new production SES account sends: 80% of its 14 mails a second.
  campaignMaxRate: 11.2,
} as const;

// API Gateway stage names: letters, digits, hyphens, underscores.
const STAGE_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;
// SSM names: letters, digits and . - _ / ; a leading slash starts a hierarchy.
const PARAMETER_NAME = /^\/?[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
const ADDRESS = /^[^@\s]{1,64}@(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;
const CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[A-Za-z0-9-]+$/;
const GLOBAL_WEB_ACL_ARN =
  /^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[\w-]{1,128}\/[a-f0-9-]{36}$/;

/**
 * Turns context into a validated configuration.
 *
 * @throws DeploymentContextError naming every bad or missing value at once, so one synth
 *   shows all of them.
 */
export function readNewsletterConfig(read: ContextReader): NewsletterConfig {
  const problems: string[] = [];
  const text = (key: string): string | undefined => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') {
      problems.push(`${key} must be a string`);
      return undefined;
    }
    return value.trim();
  };
  const matching = (key: string, pattern: RegExp, fallback: string, hint: string): string => {
    const value = text(key) ?? fallback;
    if (!pattern.test(value)) problems.push(`${key} "${value}" is not valid: ${hint}`);
    return value;
  };
  // `-c retain=false` arrives as the string "false", cdk.json gives a real boolean.
  const flag = (key: string, fallback: boolean): boolean => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return fallback;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    problems.push(`${key} must be true or false`);
    return fallback;
  };
  const count = (key: string, fallback: number, min: number, max: number): number => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return fallback;
    const parsed = typeof value === 'number' ? value : Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      problems.push(`${key} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return parsed;
  };
  const optionalCount = (key: string, min: number, max: number): number | undefined => {
    const value = read(key);
    return value === undefined || value === null || value === ''
      ? undefined
      : count(key, min, min, max);
  };
  // A rate may have decimals: 80% of 14 is 11.2.
  const rate = (key: string, fallback: number, max: number): number => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return fallback;
    const parsed = typeof value === 'number' ? value : Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0 || parsed > max) {
      problems.push(`${key} must be a number of mails per second above 0, at most ${max}`);
      return fallback;
    }
    return parsed;
  };

  const senderIdentity = text('senderIdentity');
  if (senderIdentity === undefined) {
    problems.push(
      'senderIdentity is required: the verified SES identity mail is sent from, a domain ' +
        '(example.com) or an address (news@example.com); pass -c senderIdentity=...',
    );
  } else if (!DOMAIN.test(senderIdentity) && !ADDRESS.test(senderIdentity)) {
    problems.push(`senderIdentity "${senderIdentity}" is neither a domain nor an address`);
  }

  const sandboxRecipients = (text('sandboxRecipients') ?? '')
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
  for (const address of sandboxRecipients) {
    if (!ADDRESS.test(address)) problems.push(`sandboxRecipients: "${address}" is not an address`);
  }

  const corsText = text('corsOrigins') ?? '*';
  const corsOrigins: '*' | string[] =
    corsText === '*'
      ? '*'
      : corsText
          .split(',')
          .map((origin) => origin.trim().replace(/\/+$/, ''))
          .filter(Boolean);
  if (corsOrigins !== '*') {
    for (const origin of corsOrigins) {
      if (!ORIGIN.test(origin)) {
        problems.push(`corsOrigins: "${origin}" is not an origin such as https://example.com`);
      }
    }
    if (corsOrigins.length === 0) problems.push('corsOrigins: give * or at least one origin');
  }

  const domainName = text('domainName');
  const certificateArn = text('certificateArn');
  if ((domainName === undefined) !== (certificateArn === undefined)) {
    problems.push('domainName and certificateArn go together: set both or neither');
  }
  if (domainName !== undefined && !DOMAIN.test(domainName)) {
    problems.push(`domainName "${domainName}" is not a domain name`);
  }
  if (certificateArn !== undefined && !CERTIFICATE_ARN.test(certificateArn)) {
    problems.push(
      `certificateArn "${certificateArn}" is not an ACM certificate ARN in us-east-1 (the distribution's certificate must be there)`,
    );
  }

  if (read('trustedProxyHops') !== undefined) {
    problems.push(
      'trustedProxyHops is no longer read: the API answers only what came through the ' +
        "stack's CloudFront, which tells it the client's address itself (docs/deploy.md, " +
        '"The front door"); remove it',
    );
  }
  const distributionWebAclArn = text('distributionWebAclArn');
  if (distributionWebAclArn !== undefined && !GLOBAL_WEB_ACL_ARN.test(distributionWebAclArn)) {
    problems.push(
      `distributionWebAclArn "${distributionWebAclArn}" is not the ARN of a CloudFront-scoped web ACL (arn:aws:wafv2:us-east-1:…:global/webacl/NAME/ID)`,
    );
  }
  const wafLimit = (key: string, fallback: number): number =>
    count(key, fallback, 10, 2_000_000_000);
  const wafWindowSeconds = count('wafWindowSeconds', DEFAULTS.wafWindowSeconds, 60, 600);
  if (!(RATE_WINDOWS as readonly number[]).includes(wafWindowSeconds)) {
    problems.push(`wafWindowSeconds must be one of ${RATE_WINDOWS.join(', ')}`);
  }

  const alarmTopicArn = text('alarmTopicArn');
  if (alarmTopicArn !== undefined && !TOPIC_ARN.test(alarmTopicArn)) {
    problems.push(`alarmTopicArn "${alarmTopicArn}" is not an SNS topic ARN`);
  }

  const trackingDomain = text('trackingDomain');
  if (trackingDomain !== undefined && !DOMAIN.test(trackingDomain)) {
    problems.push(`trackingDomain "${trackingDomain}" is not a domain name`);
  }

  const throttleRate = count('throttleRate', DEFAULTS.throttleRate, 1, 10_000);
  const throttleBurst = count('throttleBurst', DEFAULTS.throttleBurst, 1, 5_000);
  // Lambda's memory range; the workers' mapping allows at least 2 at once.
  const campaignWorkers = optionalCount('campaignWorkers', 2, 100);
  const campaignWorkerMemory = optionalCount('campaignWorkerMemory', 128, 10_240);
  const logRetentionDays = count('logRetentionDays', DEFAULTS.logRetentionDays, 1, 3653);
  if (!LOG_RETENTION_DAYS.includes(logRetentionDays)) {
    problems.push(`logRetentionDays must be one of ${LOG_RETENTION_DAYS.join(', ')}`);
  }

  // Whether it holds a built console is checked where it is deployed (ConsoleSite).
  const consoleDir = resolve(PROJECT_ROOT, text('consoleDir') ?? 'console/dist');

  const config: NewsletterConfig = {
    consoleDir,
    stackName: matching('stackName', STACK_NAME, DEFAULTS.stackName, 'letters, digits, hyphens'),
    stage: matching('stage', STAGE_NAME, DEFAULTS.stage, 'letters, digits, - and _ only'),
    corsOrigins,
    senderIdentity: senderIdentity ?? '',
    sandboxRecipients,
    apiKeyParameter: matching(
      'apiKeyParameter',
      PARAMETER_NAME,
      ENV_DEFAULTS.apiKeyParameter,
      'an SSM parameter name such as /newsletter/api-key',
    ),
    settingsParameter: matching(
      'settingsParameter',
      PARAMETER_NAME,
      ENV_DEFAULTS.settingsParameter,
      'an SSM parameter name such as /newsletter/settings',
    ),
    parameterCacheSeconds: count(
      'parameterCacheSeconds',
      ENV_DEFAULTS.parameterCacheSeconds,
      0,
      3600,
    ),
    ...(domainName !== undefined && certificateArn !== undefined
      ? { customDomain: { domainName: domainName.toLowerCase(), certificateArn } }
      : {}),
    retain: flag('retain', true),
    deletionProtection: flag('deletionProtection', true),
    throttleRate,
    throttleBurst,
    signUpThrottle: {
      rate: count('signUpThrottleRate', DEFAULTS.signUpThrottleRate, 1, 10_000),
      burst: count('signUpThrottleBurst', DEFAULTS.signUpThrottleBurst, 1, 5_000),
    },
    unsubscribeThrottle: {
      rate: count('unsubscribeThrottleRate', DEFAULTS.unsubscribeThrottleRate, 1, 10_000),
      burst: count('unsubscribeThrottleBurst', DEFAULTS.unsubscribeThrottleBurst, 1, 5_000),
    },
    clientLimits: {
      signUp: wafLimit('wafSignUpLimit', DEFAULTS.wafSignUpLimit),
      unsubscribe: wafLimit('wafUnsubscribeLimit', DEFAULTS.wafUnsubscribeLimit),
      api: wafLimit('wafApiLimit', DEFAULTS.wafApiLimit),
      windowSeconds: wafWindowSeconds as RateLimits['windowSeconds'],
    },
    originSecretGeneration: count('originSecretGeneration', 1, 1, 1_000_000),
    ...(distributionWebAclArn !== undefined ? { distributionWebAclArn } : {}),
    logRetentionDays,
    apiGatewayCloudWatchRole: flag('apiGatewayCloudWatchRole', true),
    ...(alarmTopicArn !== undefined ? { alarmTopicArn } : {}),
    streamRetryBaseMs: count('streamRetryBaseMs', ENV_DEFAULTS.streamRetryBaseMs, 0, 10_000),
    campaignMaxRate: rate('campaignMaxRate', DEFAULTS.campaignMaxRate, 100_000),
    ...(campaignWorkers !== undefined ? { campaignWorkers } : {}),
    ...(campaignWorkerMemory !== undefined ? { campaignWorkerMemory } : {}),
    campaignTimeoutSeconds: count('campaignTimeoutSeconds', 60, 15, 900),
    ...(trackingDomain !== undefined ? { trackingDomain: trackingDomain.toLowerCase() } : {}),
  };
  if (config.apiKeyParameter === config.settingsParameter) {
    problems.push('apiKeyParameter and settingsParameter must be different parameters');
  }
  if (problems.length > 0) {
    throw new DeploymentContextError(`Invalid deployment context:\n- ${problems.join('\n- ')}`);
  }
  return config;
}
