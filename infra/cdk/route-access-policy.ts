import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CampaignQueueName, IndexName, Route } from '../../functions/routes.ts';

/** The ARNs a route's function may touch; built once by the stack, shared by every route. */
export interface AccessTargets {
  readonly tableArn: string;
  /** The ARN of each global secondary index (never `index/*`): Query reaches only those. */
  readonly indexArns: Readonly<Record<IndexName, string>>;
  readonly apiKeyParameterArn: string;
  readonly settingsParameterArn: string;
  /** SES identities the function may send as (the sender identity, sandbox recipients). */
  readonly mailIdentityArns: readonly string[];
  /** The sender identity: a domain (`example.com`) or one address; limits `ses:FromAddress`. */
  readonly senderIdentity: string;
  /**
   * The configuration sets a function's sends name. SES authorizes a send that names one
   * against the identity and against the configuration set, so a mail-sending function needs
   * both.
   */
  readonly configurationSetArns?: readonly string[];
  /** `arn:…:kms:<region>:<account>:key/*`: the aws/ssm key's id is unknown at synth. */
  readonly anyKeyArn: string;
  /** The region, for the `ssm.<region>.amazonaws.com` service SSM decrypts through. */
  readonly region: string;
  /** The campaign engine's queues, for functions that queue campaign work. */
  readonly campaignQueueArns?: Readonly<Record<CampaignQueueName, string>>;
  /** The events queue, for the function that queues events (`access.eventsQueue`). */
  readonly eventsQueueArn?: string;
  /** The console's user pool, for the functions that manage people (`access.people`). */
  readonly userPoolArn?: string;
  /** Scheduled sends, for functions that schedule them (`access.schedules`). */
  readonly schedules?: {
    /**
     * The schedules the service names in the stack's group:
     * `arn:…:scheduler:<region>:<account>:schedule/<group>/newsletter-*` (a name carries the
     * issue and its time, so it is unknown at synth).
     */
    readonly scheduleArns: string;
    /** The role EventBridge Scheduler invokes the starter with, which the caller passes. */
    readonly roleArn: string;
  };
}

/** The principal EventBridge Scheduler assumes a schedule's role as. */
export const SCHEDULER_SERVICE = 'scheduler.amazonaws.com';

/** Which SSM parameters a route's function reads. */
export function parameterReads(route: Pick<Route, 'key' | 'access'>): {
  readsKey: boolean;
  readsSettings: boolean;
} {
  const readsKey = route.key !== 'none';
  // A keyed route fetches key and settings together (ServiceParameters.apiKey), so it needs both.
  return { readsKey, readsSettings: readsKey || route.access.settings };
}

/**
 * The IAM statements a route's function gets, derived only from the route table: exactly the
 * DynamoDB item actions in `access.table` on the table, Query on exactly the indexes in
 * `access.queries`, SES only with `access.sendsMail`, only from the sender identity and with
 * the configuration set, and the API key only for routes that accept one (`key` is not
 * `none`), the settings where the route reads them.
 */
export function routePolicyStatements(
  route: Pick<Route, 'key' | 'access'>,
  targets: AccessTargets,
): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  const tableActions = [...new Set(route.access.table)].sort();
  if (tableActions.length > 0) {
    statements.push(
      new PolicyStatement({
        sid: 'Table',
        effect: Effect.ALLOW,
        actions: tableActions,
        resources: [targets.tableArn],
      }),
    );
  }
  const indexes = [...new Set(route.access.queries)].sort();
  if (indexes.length > 0) {
    statements.push(
      new PolicyStatement({
        sid: 'TableIndexes',
        effect: Effect.ALLOW,
        actions: ['dynamodb:Query'],
        resources: indexes.map((index) => targets.indexArns[index]),
      }),
    );
  }

  const { readsKey, readsSettings } = parameterReads(route);
  const parameters = [
    ...(readsKey ? [targets.apiKeyParameterArn] : []),
    ...(readsSettings ? [targets.settingsParameterArn] : []),
  ];
  if (parameters.length > 0) {
    statements.push(
      new PolicyStatement({
        sid: 'Parameters',
        effect: Effect.ALLOW,
        // The Parameters and Secrets extension reads each name with GetParameter.
        actions: ['ssm:GetParameter'],
        resources: parameters,
      }),
    );
  }
  if (readsKey) {
    // The key is a SecureString: GetParameter with decryption makes SSM call kms:Decrypt on the
    // function's behalf. The conditions allow that for this one parameter, through SSM only.
    statements.push(
      new PolicyStatement({
        sid: 'ApiKeyDecrypt',
        effect: Effect.ALLOW,
        actions: ['kms:Decrypt'],
        resources: [targets.anyKeyArn],
        conditions: {
          StringEquals: {
            'kms:ViaService': `ssm.${targets.region}.amazonaws.com`,
            'kms:EncryptionContext:PARAMETER_ARN': targets.apiKeyParameterArn,
          },
        },
      }),
    );
  }

  if (route.access.writesSettings) {
    statements.push(
      new PolicyStatement({
        sid: 'SettingsWrite',
        effect: Effect.ALLOW,
        // A String parameter: no KMS. Read by the same grant as the extension's reads.
        actions: ['ssm:PutParameter'],
        resources: [targets.settingsParameterArn],
      }),
    );
  }
  if (route.access.sendsMail) {
    statements.push(
      new PolicyStatement({
        sid: 'Mail',
        effect: Effect.ALLOW,
        // The mailer builds MIME itself and sends it raw (shared/adapters/mail/ses-mailer.ts).
        actions: ['ses:SendRawEmail'],
        resources: [...targets.mailIdentityArns, ...(targets.configurationSetArns ?? [])],
        // Only as the sender identity: the whole domain, or exactly the one address.
        conditions: targets.senderIdentity.includes('@')
          ? { StringEquals: { 'ses:FromAddress': targets.senderIdentity.toLowerCase() } }
          : { StringLike: { 'ses:FromAddress': `*@${targets.senderIdentity.toLowerCase()}` } },
      }),
    );
  }
  const queues = [...new Set(route.access.queues ?? [])].sort();
  if (queues.length > 0) {
    const arns = targets.campaignQueueArns;
    if (!arns)
      throw new Error('a function queues campaign work, but the stack has no campaign queues');
    statements.push(
      new PolicyStatement({
        sid: 'CampaignQueues',
        effect: Effect.ALLOW,
        // SendMessageBatch is authorized as SendMessage.
        actions: ['sqs:SendMessage'],
        resources: queues.map((queue) => arns[queue]),
      }),
    );
  }
  if (route.access.eventsQueue) {
    if (!targets.eventsQueueArn)
      throw new Error('a function queues events, but the stack has no events queue');
    statements.push(
      new PolicyStatement({
        sid: 'EventsQueue',
        effect: Effect.ALLOW,
        actions: ['sqs:SendMessage'],
        resources: [targets.eventsQueueArn],
      }),
    );
  }
  if (route.access.schedules) {
    const schedules = targets.schedules;
    if (!schedules)
      throw new Error('a function schedules sends, but the stack has no schedule group');
    statements.push(
      new PolicyStatement({
        sid: 'Schedules',
        effect: Effect.ALLOW,
        // As `newsletters schedule` and `unschedule` call them (docs/deploy.md).
        actions: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        resources: [schedules.scheduleArns],
      }),
      new PolicyStatement({
        sid: 'PassSchedulerRole',
        effect: Effect.ALLOW,
        // CreateSchedule names the role the schedule invokes with: the caller must pass it,
        // and only to EventBridge Scheduler.
        actions: ['iam:PassRole'],
        resources: [schedules.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': SCHEDULER_SERVICE } },
      }),
    );
  }
  const people = [...new Set(route.access.people ?? [])].sort();
  if (people.length > 0) {
    if (!targets.userPoolArn)
      throw new Error('a function manages people, but the stack has no user pool');
    statements.push(
      new PolicyStatement({
        sid: 'People',
        effect: Effect.ALLOW,
        // Exactly the admin calls shared/adapters/people/cognito-people-directory.ts makes.
        actions: people,
        resources: [targets.userPoolArn],
      }),
    );
  }
  if (route.access.sendQuota) {
    statements.push(
      new PolicyStatement({
        sid: 'SendQuota',
        effect: Effect.ALLOW,
        // GetSendQuota has no resource-level permissions: the quota is the account's.
        actions: ['ses:GetSendQuota'],
        resources: ['*'],
      }),
    );
  }
  if (route.access.sendStatistics) {
    statements.push(
      new PolicyStatement({
        sid: 'SendStatistics',
        effect: Effect.ALLOW,
        // GetSendStatistics has no resource-level permissions: the figures are the account's.
        actions: ['ses:GetSendStatistics'],
        resources: ['*'],
      }),
    );
  }
  return statements;
}
