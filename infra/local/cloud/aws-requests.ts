/**
 * What IAM authorizes for each AWS API call the project makes, read from the call as it goes
 * on the wire. One API call can need several authorizations: every item of a DynamoDB
 * transaction, every name of SSM GetParameters, the KMS decryption SSM performs on the
 * caller's behalf for a SecureString, and an SES send's identity and configuration set.
 */

import type { PolicyDocument } from './deployed-stack.ts';
import type { AuthorizationRequest } from './iam-evaluator.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './intrinsics.ts';

/**
 * One authorization a call needs. Authorizations that share an `anyOf` label are
 * alternatives (one allowing is enough: the SES identity of the address or of its domain);
 * every other one must allow on its own.
 */
export interface RequiredAuthorization extends AuthorizationRequest {
  readonly anyOf?: string;
}

/** Whether a call is allowed, given the verdict on each of its authorizations in order. */
export function callAllowed(
  authorizations: readonly RequiredAuthorization[],
  verdicts: readonly boolean[],
): boolean {
  const groups = new Map<string, boolean>();
  let allRequired = true;
  authorizations.forEach((authorization, index) => {
    const allowed = verdicts[index] === true;
    if (authorization.anyOf === undefined) allRequired &&= allowed;
    else groups.set(authorization.anyOf, (groups.get(authorization.anyOf) ?? false) || allowed);
  });
  return authorizations.length > 0 && allRequired && [...groups.values()].every(Boolean);
}

/**
 * The authorization that makes a call refused, to name in the denial: a required one that
 * was denied, else the first of a group of alternatives that were all denied.
 */
export function decisiveRefusal<T extends RequiredAuthorization & { readonly allowed: boolean }>(
  authorizations: readonly T[],
): T | undefined {
  const required = authorizations.find((each) => each.anyOf === undefined && !each.allowed);
  if (required) return required;
  return authorizations.find(
    (each) =>
      each.anyOf !== undefined &&
      authorizations.every((other) => other.anyOf !== each.anyOf || !other.allowed),
  );
}

/** A call as the endpoint received it. */
export interface WireCall {
  /** Signing name from the credential scope: `dynamodb`, `ssm`, `ses`, `sqs`, ... */
  readonly service: string;
  /** API operation, e.g. `GetItem`, `GetParameters`, `SendRawEmail`. */
  readonly operation: string;
  /** The decoded parameters: the JSON body, or the query-protocol form fields. */
  readonly input: Readonly<Record<string, unknown>>;
}

/** Facts about the local account a request's authorization depends on. */
export interface AccountFacts {
  /** Whether a parameter is a SecureString (decrypting it needs kms:Decrypt). */
  readonly isSecureParameter: (name: string) => boolean;
  /** The key SSM encrypts SecureStrings with (the account's aws/ssm key). */
  readonly ssmKeyArn: string;
  /** Queue ARN of a queue URL. */
  readonly queueArn: (url: string) => string | undefined;
  /** The queue's access policy (its AWS::SQS::QueuePolicy), if it has one. */
  readonly queuePolicy?: (queueArn: string) => PolicyDocument | undefined;
}

const arn = (service: string, resource: string): string =>
  `arn:aws:${service}:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${resource}`;

const tableArn = (name: unknown): string => arn('dynamodb', `table/${String(name)}`);

/** EventBridge Scheduler's REST operations on one schedule, by HTTP method. */
const SCHEDULE_OPERATIONS: Readonly<Record<string, string>> = {
  POST: 'CreateSchedule',
  GET: 'GetSchedule',
  PUT: 'UpdateSchedule',
  DELETE: 'DeleteSchedule',
};

/** The wire call's operation and input, from its headers and body; undefined if unreadable. */
export function readWireCall(
  service: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  path: string,
  body: Buffer,
  method = 'POST',
): WireCall | undefined {
  if (service === 'scheduler') return readScheduleCall(method, path, body);
  const target = headers['x-amz-target'];
  if (typeof target === 'string') {
    const operation = target.slice(target.lastIndexOf('.') + 1);
    try {
      const input = body.length
        ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>)
        : {};
      return { service, operation, input };
    } catch {
      return undefined;
    }
  }
  if (service === 'ses' && path.startsWith('/v2/')) {
    // SES v2 is REST-JSON; the project sends only through v1, but map the send for safety.
    try {
      const input = body.length
        ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>)
        : {};
      return { service, operation: 'SendEmail', input };
    } catch {
      return undefined;
    }
  }
  const form = new URLSearchParams(body.toString('utf8'));
  const operation = form.get('Action');
  if (!operation) return undefined;
  return { service, operation, input: Object.fromEntries(form) };
}

/**
 * EventBridge Scheduler is REST-JSON: `/schedules/{Name}`, the method naming the operation, the
 * group in the body (CreateSchedule, UpdateSchedule) or the `groupName` query (the others).
 */
function readScheduleCall(method: string, path: string, body: Buffer): WireCall | undefined {
  const url = new URL(path, 'http://scheduler');
  const name = /^\/schedules\/([^/]+)$/.exec(url.pathname)?.[1];
  const operation = SCHEDULE_OPERATIONS[method];
  if (!name || !operation) return undefined;
  try {
    const input = body.length ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
    const group = url.searchParams.get('groupName');
    return {
      service: 'scheduler',
      operation,
      input: { ...input, Name: decodeURIComponent(name), ...(group ? { GroupName: group } : {}) },
    };
  } catch {
    return undefined;
  }
}

/** The authorizations a call needs, in the order AWS checks them. */
export function authorizationsFor(call: WireCall, facts: AccountFacts): RequiredAuthorization[] {
  const { service, operation, input } = call;
  switch (service) {
    case 'dynamodb':
      return dynamodbAuthorizations(operation, input);
    case 'ssm':
      return ssmAuthorizations(operation, input, facts);
    case 'ses':
      return sesAuthorizations(operation, input);
    case 'sqs':
      return sqsAuthorizations(operation, input, facts);
    case 'scheduler':
      return schedulerAuthorizations(operation, input);
    case 'events':
      return eventsAuthorizations(operation, input);
    case 'cognito-idp':
      // The admin actions the project calls all name their pool, and IAM authorizes them on it.
      return [
        {
          action: `cognito-idp:${operation}`,
          resource:
            typeof input.UserPoolId === 'string'
              ? arn('cognito-idp', `userpool/${input.UserPoolId}`)
              : '*',
        },
      ];
    default:
      return [{ action: `${service}:${operation}`, resource: '*' }];
  }
}

function dynamodbAuthorizations(
  operation: string,
  input: Readonly<Record<string, unknown>>,
): AuthorizationRequest[] {
  switch (operation) {
    case 'TransactWriteItems': {
      const actions: Record<string, string> = {
        Put: 'dynamodb:PutItem',
        Update: 'dynamodb:UpdateItem',
        Delete: 'dynamodb:DeleteItem',
        ConditionCheck: 'dynamodb:ConditionCheckItem',
      };
      return ((input.TransactItems ?? []) as Record<string, { TableName?: string }>[]).flatMap(
        (item) =>
          Object.entries(item).map(([kind, detail]) => ({
            action: actions[kind] ?? `dynamodb:${kind}`,
            resource: tableArn(detail.TableName),
          })),
      );
    }
    case 'TransactGetItems':
      return ((input.TransactItems ?? []) as { Get?: { TableName?: string } }[]).map((item) => ({
        action: 'dynamodb:GetItem',
        resource: tableArn(item.Get?.TableName),
      }));
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys((input.RequestItems ?? {}) as object).map((table) => ({
        action: `dynamodb:${operation}`,
        resource: tableArn(table),
      }));
    case 'Query':
    case 'Scan':
      return [
        {
          action: `dynamodb:${operation}`,
          resource:
            typeof input.IndexName === 'string'
              ? `${tableArn(input.TableName)}/index/${input.IndexName}`
              : tableArn(input.TableName),
        },
      ];
    case 'ListTables':
    case 'ListStreams':
      return [{ action: `dynamodb:${operation}`, resource: '*' }];
    case 'DescribeStream':
    case 'GetShardIterator':
      return [
        { action: `dynamodb:${operation}`, resource: cloudStreamArn(String(input.StreamArn)) },
      ];
    case 'GetRecords': {
      // A shard iterator is opaque; DynamoDB Local's starts with the stream ARN it belongs to.
      const iterator = String(input.ShardIterator ?? '');
      const stream = /arn:aws:dynamodb:[^|]*?\/stream\/[^|]+/.exec(iterator)?.[0];
      return [
        {
          action: 'dynamodb:GetRecords',
          resource: stream ? cloudStreamArn(stream) : arn('dynamodb', 'table/*'),
        },
      ];
    }
    default:
      return [{ action: `dynamodb:${operation}`, resource: tableArn(input.TableName) }];
  }
}

/**
 * SQS authorizes a batch call as its single action (there is no `sqs:SendMessageBatch` in
 * IAM), on the queue of the URL, or of the name for GetQueueUrl and CreateQueue. The queue's
 * own policy takes part, evaluated as for a call over TLS (`aws:SecureTransport` true): the
 * loopback is plain HTTP, but it stands for the HTTPS the SDK always uses on AWS, so a policy
 * that denies insecure transport (CDK's `enforceSSL`) denies nothing here, and one that denies
 * anything else denies it here too.
 */
function sqsAuthorizations(
  operation: string,
  input: Readonly<Record<string, unknown>>,
  facts: AccountFacts,
): RequiredAuthorization[] {
  const action = `sqs:${operation.replace(/Batch$/, '')}`;
  if (operation === 'ListQueues') return [{ action, resource: '*' }];
  const named = operation === 'GetQueueUrl' || operation === 'CreateQueue';
  const owner =
    typeof input.QueueOwnerAWSAccountId === 'string' ? input.QueueOwnerAWSAccountId : LOCAL_ACCOUNT;
  const resource = named
    ? `arn:aws:sqs:${LOCAL_REGION}:${owner}:${String(input.QueueName ?? '')}`
    : (facts.queueArn(String(input.QueueUrl ?? '')) ?? arn('sqs', 'unknown'));
  const resourcePolicy = facts.queuePolicy?.(resource);
  return [
    {
      action,
      resource,
      context: { 'aws:SecureTransport': 'true' },
      ...(resourcePolicy ? { resourcePolicy } : {}),
    },
  ];
}

/**
 * EventBridge authorizes PutEvents on each entry's bus (a name or an ARN; `default` without
 * one), once per bus named.
 */
function eventsAuthorizations(
  operation: string,
  input: Readonly<Record<string, unknown>>,
): RequiredAuthorization[] {
  const entries = (Array.isArray(input.Entries) ? input.Entries : []) as Record<string, unknown>[];
  const buses = new Set(
    entries.map((entry) => {
      const bus = typeof entry.EventBusName === 'string' ? entry.EventBusName : 'default';
      return bus.startsWith('arn:') ? bus : arn('events', `event-bus/${bus}`);
    }),
  );
  if (buses.size === 0) buses.add(arn('events', 'event-bus/default'));
  return [...buses].map((resource) => ({ action: `events:${operation}`, resource }));
}

/**
 * A schedule's actions are authorized on the schedule (`schedule/<group>/<name>`); creating or
 * changing one that names a role (its target's `RoleArn`) also needs `iam:PassRole` on that
 * role, with `iam:PassedToService` the Scheduler.
 */
function schedulerAuthorizations(
  operation: string,
  input: Readonly<Record<string, unknown>>,
): RequiredAuthorization[] {
  const group = typeof input.GroupName === 'string' ? input.GroupName : 'default';
  const schedule = {
    action: `scheduler:${operation}`,
    resource: arn('scheduler', `schedule/${group}/${String(input.Name ?? '')}`),
  };
  const roleArn = (input.Target as { RoleArn?: unknown } | undefined)?.RoleArn;
  if (typeof roleArn !== 'string') return [schedule];
  return [
    schedule,
    {
      action: 'iam:PassRole',
      resource: roleArn,
      context: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
    },
  ];
}

function ssmAuthorizations(
  operation: string,
  input: Readonly<Record<string, unknown>>,
  facts: AccountFacts,
): AuthorizationRequest[] {
  const names: string[] =
    operation === 'GetParameters'
      ? ((input.Names ?? []) as string[])
      : typeof input.Name === 'string'
        ? [input.Name]
        : [];
  if (names.length === 0) return [{ action: `ssm:${operation}`, resource: '*' }];
  const parameterArn = (name: string): string => arn('ssm', `parameter/${name.replace(/^\//, '')}`);
  const requests: AuthorizationRequest[] = names.map((name) => ({
    action: `ssm:${operation}`,
    resource: parameterArn(name),
  }));
  if ((operation === 'GetParameter' || operation === 'GetParameters') && input.WithDecryption) {
    // SSM decrypts a SecureString with the caller's own permissions (forward access session):
    // kms:Decrypt through SSM, with the parameter's ARN as encryption context.
    for (const name of names.filter(facts.isSecureParameter)) {
      requests.push({
        action: 'kms:Decrypt',
        resource: facts.ssmKeyArn,
        context: {
          'kms:ViaService': `ssm.${LOCAL_REGION}.amazonaws.com`,
          'kms:EncryptionContext:PARAMETER_ARN': parameterArn(name),
          'kms:CallerAccount': LOCAL_ACCOUNT,
        },
      });
    }
  }
  return requests;
}

/** The From address of a raw MIME message (first From header), lower-cased. */
function fromOfRawMessage(base64: string): { address?: string; displayName?: string } {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  const headerEnd = text.search(/\r?\n\r?\n/);
  const headers = (headerEnd === -1 ? text : text.slice(0, headerEnd)).replace(/\r?\n[ \t]+/g, ' ');
  const from = /^from:\s*(.*)$/im.exec(headers)?.[1]?.trim();
  if (!from) return {};
  const angle = /^(.*)<([^>]+)>\s*$/.exec(from);
  if (angle) {
    return {
      address: angle[2]?.trim().toLowerCase(),
      displayName: angle[1]?.trim().replace(/^"|"$/g, ''),
    };
  }
  return { address: from.toLowerCase() };
}

/** SES v1 actions about the account rather than an identity or configuration set. */
const ACCOUNT_LEVEL_SES_ACTIONS: ReadonlySet<string> = new Set([
  'GetSendQuota',
  'GetSendStatistics',
  'GetAccountSendingEnabled',
]);

/**
 * SES authorizes a send against the identity it sends as: the From address's own identity
 * or its domain's. Both candidates are checked; either allowing is enough (the endpoint knows
 * no list of verified identities). A send that names a configuration set is also authorized
 * against the configuration set, and that one must allow too. Condition keys:
 * ses:FromAddress, ses:FromDisplayName, ses:Recipients, ses:ApiVersion.
 */
function sesAuthorizations(
  operation: string,
  input: Readonly<Record<string, unknown>>,
): RequiredAuthorization[] {
  // The account's own figures have no resource type: IAM authorizes them on "*" only.
  if (ACCOUNT_LEVEL_SES_ACTIONS.has(operation))
    return [{ action: `ses:${operation}`, resource: '*' }];
  let from: { address?: string; displayName?: string } = {};
  const recipients: string[] = [];
  if (operation === 'SendRawEmail') {
    from = fromOfRawMessage(String(input['RawMessage.Data'] ?? ''));
    if (typeof input.Source === 'string') from = { ...from, address: input.Source.toLowerCase() };
    for (const [key, value] of Object.entries(input)) {
      if (key.startsWith('Destinations.member.')) recipients.push(String(value).toLowerCase());
    }
  } else if (typeof input.Source === 'string') {
    from = { address: input.Source.toLowerCase() };
  }
  const address = from.address ?? '';
  const domain = address.split('@')[1] ?? '';
  const context: Record<string, string | string[]> = {
    'ses:FromAddress': address,
    'ses:ApiVersion': '1',
    ...(from.displayName ? { 'ses:FromDisplayName': from.displayName } : {}),
    ...(recipients.length ? { 'ses:Recipients': recipients } : {}),
  };
  const configurationSet =
    typeof input.ConfigurationSetName === 'string' ? input.ConfigurationSetName : undefined;
  return [
    {
      action: `ses:${operation}`,
      resource: arn('ses', `identity/${address}`),
      context,
      anyOf: 'identity',
    },
    {
      action: `ses:${operation}`,
      resource: arn('ses', `identity/${domain}`),
      context,
      anyOf: 'identity',
    },
    ...(configurationSet
      ? [
          {
            action: `ses:${operation}`,
            resource: arn('ses', `configuration-set/${configurationSet}`),
            context,
          },
        ]
      : []),
  ];
}

/** The kind of a DynamoDB item, from its key (`SUBSCRIBER#…` → `SUBSCRIBER`). */
function itemKind(key: unknown): string {
  const pk = (key as { pk?: { S?: string } } | undefined)?.pk?.S ?? '';
  return pk.split('#')[0] || '?';
}

/**
 * A short, secret-free description of a call, for the recorded access patterns:
 * `GetItem SUBSCRIBER`, `TransactWriteItems(Put SUBSCRIBER, Put TOKEN)`, `Query recent`,
 * `GetParameter(settings)`, `SendRawEmail`.
 */
export function summarizeCall(call: WireCall): string {
  const { service, operation, input } = call;
  if (service === 'dynamodb') {
    if (operation === 'TransactWriteItems') {
      const items = (input.TransactItems ?? []) as Record<
        string,
        { Key?: unknown; Item?: unknown }
      >[];
      const parts = items.flatMap((item) =>
        Object.entries(item).map(
          ([kind, detail]) => `${kind} ${itemKind(detail.Key ?? detail.Item)}`,
        ),
      );
      return `${operation}(${parts.join(', ')})`;
    }
    if (operation === 'Query' || operation === 'Scan') {
      return `${operation} ${typeof input.IndexName === 'string' ? input.IndexName : 'table'}`;
    }
    return `${operation} ${itemKind(input.Key ?? input.Item)}`;
  }
  if (service === 'ssm') {
    const names = (operation === 'GetParameters' ? (input.Names ?? []) : [input.Name]) as string[];
    return `${operation}(${names.map((name) => String(name).split('/').at(-1)).join(', ')})`;
  }
  return operation;
}

/**
 * The local cloud's ARN of a stream ARN as DynamoDB Local writes it (region `ddblocal`, account
 * zeros): what the stack's policies name, so the role's grants decide.
 */
export function cloudStreamArn(localArn: string): string {
  return localArn.replace(
    /^arn:aws:dynamodb:[^:]*:\d*:/,
    `arn:aws:dynamodb:${LOCAL_REGION}:${LOCAL_ACCOUNT}:`,
  );
}
