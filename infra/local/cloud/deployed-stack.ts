/**
 * The synthesized stack (`cdk.out`), read the way the local cloud runs it: functions with their
 * bundles, environment and role policy; the REST API's routes, mock methods and gateway
 * responses; the table's definition. Values come from the template only, with intrinsics
 * resolved for the local cloud, so what runs locally is what CloudFormation would deploy.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import {
  evaluateConditions,
  LOCAL_ACCOUNT,
  LOCAL_REGION,
  type Resolved,
  resolveValue,
  type TemplateConditions,
  TemplateError,
  type TemplateMappings,
} from './intrinsics.ts';

/** One resource of a CloudFormation template. */
export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  /** A condition of the template's `Conditions`: the resource exists only where it holds. */
  readonly Condition?: string;
}

/** An IAM policy statement after resolution. */
export interface PolicyStatement {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  /** Resource policies only (a topic's access policy): who the statement is about. */
  readonly Principal?: '*' | Readonly<Record<string, string | readonly string[]>>;
  readonly Action: string | string[];
  readonly Resource: string | string[];
  readonly Condition?: Record<string, Record<string, string | string[]>>;
}

/** An identity policy document after resolution. */
export interface PolicyDocument {
  readonly Version: string;
  readonly Statement: PolicyStatement[];
}

/** A Lambda function as the template defines it. */
export interface DeployedFunction {
  readonly logicalId: string;
  /** Physical function name, as Lambda would report it. */
  readonly functionName: string;
  readonly functionArn: string;
  /** Source file the bundle was built from (metadata `newsletter:entry`), relative to the root. */
  readonly entry: string | undefined;
  /** Absolute folder of the bundled code in cdk.out, when the template was synthesized with it. */
  readonly codeDir: string | undefined;
  /** `file.export`, e.g. `index.handler`. */
  readonly handler: string;
  readonly runtime: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** The environment variables the template gives it, resolved. */
  readonly environment: Readonly<Record<string, string>>;
  /** ARNs of its layers, resolved. */
  readonly layers: readonly string[];
  readonly roleName: string;
  readonly roleArn: string;
  /** Every identity policy of its role: inline policies and attached AWS::IAM::Policy resources. */
  readonly policy: PolicyDocument;
  /** Its reserved concurrency, if the template sets one: most invocations at once. */
  readonly reservedConcurrency?: number;
}

/** How API Gateway answers a method. */
export type ApiIntegration =
  | { readonly kind: 'lambda'; readonly functionLogicalId: string }
  | {
      readonly kind: 'mock';
      readonly requestTemplates: Readonly<Record<string, string>>;
      readonly passthrough: string;
      readonly responses: readonly {
        readonly statusCode: string;
        readonly selectionPattern?: string;
        readonly headers: Readonly<Record<string, string>>;
        readonly templates: Readonly<Record<string, string>>;
      }[];
    };

/** One method of one resource path of the REST API. */
export interface ApiMethod {
  /** Path below the stage, e.g. `/newsletter/v1/subscribe`. */
  readonly path: string;
  /** HTTP method, or `ANY`. */
  readonly httpMethod: string;
  readonly integration: ApiIntegration;
}

/** A header value of a mapping: static, or taken from a header of the request. */
export type HeaderSource = string | { readonly requestHeader: string };

/** One of API Gateway's own responses (unknown path, throttled, ...), as customised. */
export interface GatewayResponse {
  readonly statusCode: number | undefined;
  readonly headers: Readonly<Record<string, HeaderSource>>;
  readonly templates: Readonly<Record<string, string>>;
}

/** A role of the stack that a service assumes (EventBridge Scheduler's, say). */
export interface DeployedRole {
  readonly logicalId: string;
  readonly roleArn: string;
  readonly policy: PolicyDocument;
  /** Services the trust policy lets assume the role for this account. */
  readonly trustedServices: readonly string[];
}

/** A Lambda permission letting API Gateway invoke a function for some source ARNs. */
export interface InvokePermission {
  readonly functionLogicalId: string;
  readonly sourceArn: string;
}

/** An event source mapping of a stream to a function, as the template has it. */
export interface DeployedStreamMapping {
  readonly logicalId: string;
  readonly functionLogicalId: string;
  /** The stream's ARN as the template resolves it (what Lambda puts in each record). */
  readonly streamArn: string;
  /** Logical id of the table whose stream it reads. */
  readonly tableLogicalId: string;
  readonly batchSize: number;
  readonly bisectOnError: boolean;
  /** Retries of a failing batch; -1 is unlimited, as on AWS. */
  readonly maximumRetryAttempts: number;
  readonly reportBatchItemFailures: boolean;
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST';
  /** Event filter patterns (parsed); a record passes if any matches. None: every record. */
  readonly filters: readonly unknown[];
  /** ARN of the on-failure destination (an SQS queue), if any. */
  readonly onFailureArn?: string;
}

/** An SQS queue of the stack, with what CloudFormation would create it with. */
export interface DeployedQueue {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** CreateQueue's attributes, from the template's properties (numbers and JSON as strings). */
  readonly attributes: Readonly<Record<string, string>>;
  /** Its access policy (AWS::SQS::QueuePolicy), if it has one. */
  readonly policy?: PolicyDocument;
  /** The queue its redrive policy moves messages to, by logical id. */
  readonly deadLetterQueueLogicalId?: string;
}

/** An event source mapping of a queue to a function, as the template has it. */
export interface DeployedQueueMapping {
  readonly logicalId: string;
  readonly functionLogicalId: string;
  readonly queueLogicalId: string;
  /** The queue's ARN (what Lambda puts in each record). */
  readonly queueArn: string;
  /** Most records per invocation (default 10). */
  readonly batchSize: number;
  /** Seconds to gather a batch before invoking (default 0: what one receive returns). */
  readonly maximumBatchingWindowSeconds: number;
  /** Most concurrent invocations of this mapping (ScalingConfig), if bounded. */
  readonly maximumConcurrency?: number;
  readonly reportBatchItemFailures: boolean;
  /** Event filter patterns (parsed); a message that none matches is deleted unprocessed. */
  readonly filters: readonly unknown[];
  readonly enabled: boolean;
}

/** An EventBridge rule with a schedule whose targets are functions of the stack. */
export interface DeployedScheduleRule {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** `rate(5 minutes)` or `cron(0 12 * * ? *)`, as the template writes it. */
  readonly scheduleExpression: string;
  readonly enabled: boolean;
  readonly targets: readonly {
    readonly id: string;
    readonly functionLogicalId: string;
    /** The target's constant `Input` (parsed), which replaces the scheduled event. */
    readonly input?: unknown;
  }[];
}

/** An EventBridge rule on an event pattern, on a bus of the stack. */
export interface DeployedPatternRule {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** The bus's name. */
  readonly busName: string;
  readonly pattern: unknown;
  readonly enabled: boolean;
  readonly targets: readonly {
    readonly id: string;
    /** A queue of the stack (by ARN) or a function of the stack (by logical id). */
    readonly queueArn?: string;
    readonly functionLogicalId?: string;
  }[];
}

/** An SES configuration set of the stack, with its event destinations. */
export interface DeployedConfigurationSet {
  readonly logicalId: string;
  /** Its name, as SES and the mailer's environment know it. */
  readonly name: string;
  readonly destinations: readonly {
    readonly name: string;
    readonly enabled: boolean;
    /** SES's event types, as the template writes them: `bounce`, `complaint`, `delivery`. */
    readonly eventTypes: readonly string[];
    readonly topicArn: string;
  }[];
}

/** An SNS topic of the stack and who may publish to it. */
export interface DeployedTopic {
  readonly logicalId: string;
  readonly topicArn: string;
  /** The topic's access policy (its AWS::SNS::TopicPolicy), if it has one. */
  readonly policy?: PolicyDocument;
}

/** A subscription of a function (protocol `lambda`) or a queue (`sqs`) to a topic. */
export type DeployedTopicSubscription =
  | {
      readonly logicalId: string;
      readonly topicArn: string;
      readonly functionLogicalId: string;
    }
  | {
      readonly logicalId: string;
      readonly topicArn: string;
      /** The queue's ARN; SNS sends as `sns.amazonaws.com`, checked against its policy. */
      readonly queueArn: string;
      /** Raw message delivery: the message alone, not SNS's JSON envelope. */
      readonly raw: boolean;
    };

/** How Lambda handles a function's asynchronous invocations (AWS::Lambda::EventInvokeConfig). */
export interface DeployedAsyncInvokeConfig {
  readonly functionLogicalId: string;
  /** Retries after the first attempt (Lambda's default is 2). */
  readonly maximumRetryAttempts: number;
  /** Where Lambda sends an event it gave up on (an SQS queue ARN). */
  readonly onFailureArn?: string;
}

/** The REST API of the stack. */
export interface DeployedApi {
  readonly restApiId: string;
  readonly stage: string;
  readonly binaryMediaTypes: readonly string[];
  readonly methods: readonly ApiMethod[];
  readonly gatewayResponses: ReadonlyMap<string, GatewayResponse>;
  readonly invokePermissions: readonly InvokePermission[];
  /** The stage's throttling for every method: steady requests per second and burst. */
  readonly throttle?: { readonly rate: number; readonly burst: number };
  /**
   * Throttles of single methods, by `<resource path> <METHOD>` (`/newsletter/v1/subscribe
   * POST`), overriding `throttle` for them. Each method has a bucket of its own either way.
   */
  readonly methodThrottles?: ReadonlyMap<string, { readonly rate: number; readonly burst: number }>;
  /** The web ACL associated with the stage (AWS WAF, regional), resolved. */
  readonly webAcl?: DeployedWebAcl;
}

/** An AWS WAF web ACL of the template, its properties resolved (secrets included). */
export interface DeployedWebAcl {
  readonly logicalId: string;
  readonly scope: 'REGIONAL' | 'CLOUDFRONT';
  readonly properties: Readonly<Record<string, Resolved>>;
}

/**
 * The CloudFront distribution's behaviour that passes the API to API Gateway, as the local
 * cloud serves it (infra/local/cloud/cloudfront.ts); every other path is the console's.
 */
export interface DeployedDistribution {
  readonly logicalId: string;
  /** The behaviour's path pattern (`/api/newsletter/*`). */
  readonly apiPathPattern: string;
  /** Methods the behaviour allows; CloudFront refuses others. */
  readonly apiMethods: readonly string[];
  /** The API origin's custom headers, as CloudFront adds them (secrets resolved). */
  readonly originHeaders: Readonly<Record<string, string>>;
  /** The code of the behaviour's viewer-request CloudFront Function, if any. */
  readonly viewerRequestCode?: string;
  /** The distribution's web ACL, where the template gives it one. */
  readonly webAcl?: DeployedWebAcl;
}

/** A secret the template has Secrets Manager draw (GenerateSecretString). */
export interface GeneratedSecret {
  readonly logicalId: string;
  readonly arn: string;
  readonly length: number;
  readonly excludePunctuation: boolean;
}

/** A user pool of the template, with its app clients and groups (DeployedStack.userPools). */
export interface DeployedUserPool {
  readonly logicalId: string;
  /** The name the local cloud finds it by again after a restart. */
  readonly name: string;
  readonly properties: Readonly<Record<string, Resolved>>;
  readonly clients: readonly {
    readonly logicalId: string;
    readonly name: string;
    readonly properties: Readonly<Record<string, Resolved>>;
  }[];
  readonly groups: readonly string[];
}

/** Physical names the local cloud chooses, and values only known once something runs. */
export interface LocalPhysicalIds {
  /** URL of the loopback endpoint every SDK call goes to (queue URLs point there). */
  readonly endpoint?: string;
  /** The label of the table's stream, once the table exists (its StreamArn ends with it). */
  readonly streamLabel?: string;
  /**
   * Appended to the name CloudFormation would generate for the table, as its own generated
   * names end in a random suffix: stacks that share one DynamoDB Local keep apart.
   */
  readonly tableSuffix?: string;
  /**
   * The ids the Cognito stand-in gave the template's user pools and app clients, by logical id:
   * they are its own, random as Cognito's, so known only once they exist.
   */
  readonly cognito?: ReadonlyMap<string, string>;
  /** Extra `Ref`/`GetAtt` answers, e.g. a table's StreamArn once the table exists. */
  readonly extra?: (logicalId: string, attribute: string | undefined) => string | undefined;
  /**
   * The values the local cloud drew for the template's generated secrets, by ARN: what a
   * `{{resolve:secretsmanager:...}}` dynamic reference resolves to.
   */
  readonly secrets?: ReadonlyMap<string, string>;
}

const arn = (service: string, resource: string, region = LOCAL_REGION): string =>
  `arn:aws:${service}:${region}:${LOCAL_ACCOUNT}:${resource}`;

/**
 * The bundle folder a template's function names, if the synth built one. A bundle is staged
 * in the assembly under a relative path; a synth that skipped bundling names the project
 * folder itself, by its absolute path.
 */
function bundleDir(cdkOut: string, resource: TemplateResource): string | undefined {
  const assetPath = resource.Metadata?.['aws:asset:path'];
  const isBundled = resource.Metadata?.['aws:asset:is-bundled'] === true;
  return typeof assetPath === 'string' && isBundled && !isAbsolute(assetPath)
    ? resolve(cdkOut, assetPath)
    : undefined;
}

/** The stack template of a cdk.out folder (the one stack of this app). */
export class DeployedStack {
  readonly stackName: string;
  readonly resources: Readonly<Record<string, TemplateResource>>;
  readonly mappings: TemplateMappings;
  readonly #outputs: Readonly<Record<string, { readonly Value: unknown }>>;

  #bundleSource: DeployedStack | undefined;

  constructor(
    readonly cdkOut: string,
    private readonly ids: LocalPhysicalIds = {},
    /**
     * Another cloud assembly of the same app, for a template written without bundles
     * (`-c bundling=false`): each function runs the bundle of the function with the same
     * logical id and entry there. A deployment that differs only in its template (another
     * stage's CORS origins) then needs no second bundling.
     */
    readonly bundlesFrom?: string,
  ) {
    const manifest = JSON.parse(readFileSync(join(cdkOut, 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
    };
    const stacks = Object.entries(manifest.artifacts).filter(
      ([, artifact]) => artifact.type === 'aws:cloudformation:stack',
    );
    const [stack] = stacks;
    if (stacks.length !== 1 || !stack?.[1].properties?.templateFile) {
      throw new TemplateError(`${cdkOut} must hold exactly one stack, found ${stacks.length}`);
    }
    this.stackName = stack[0];
    const template = JSON.parse(
      readFileSync(join(cdkOut, stack[1].properties.templateFile), 'utf8'),
    ) as {
      Resources: Record<string, TemplateResource>;
      Mappings?: TemplateMappings;
      Conditions?: Record<string, unknown>;
      Outputs?: Record<string, { Value: unknown; Condition?: string }>;
    };
    this.mappings = template.Mappings ?? {};
    this.conditions = evaluateConditions(
      template.Conditions ?? {},
      (logicalId) => {
        throw new TemplateError(`a condition refers to resource ${logicalId}`);
      },
      this.mappings,
    );
    // What a condition leaves out does not exist, as CloudFormation would not create it.
    const holds = (condition: string | undefined): boolean =>
      condition === undefined || this.conditions[condition] === true;
    this.resources = Object.fromEntries(
      Object.entries(template.Resources).filter(([, resource]) => holds(resource.Condition)),
    );
    this.#outputs = Object.fromEntries(
      Object.entries(template.Outputs ?? {}).filter(([, output]) => holds(output.Condition)),
    );
  }

  /** The template's conditions as they hold in the local cloud (its region is us-east-1). */
  readonly conditions: TemplateConditions;

  /** The same template with other physical ids (once the endpoint or a stream exists). */
  withIds(ids: LocalPhysicalIds): DeployedStack {
    return new DeployedStack(this.cdkOut, { ...this.ids, ...ids }, this.bundlesFrom);
  }

  /** An output of the stack, resolved as deployed locally; undefined when it has none so named. */
  output(name: string): string | undefined {
    const output = this.#outputs[name];
    return output ? this.resolveString(output.Value) : undefined;
  }

  /**
   * A role of the stack by its ARN: its policy as the local cloud evaluates it, and the
   * services its trust policy lets assume it (for this account, when it names one).
   */
  role(roleArn: string): DeployedRole | undefined {
    for (const [logicalId, role] of this.ofType('AWS::IAM::Role')) {
      if (this.reference(logicalId, 'Arn') !== roleArn) continue;
      if (role.Properties?.ManagedPolicyArns)
        throw new TemplateError(`role ${logicalId} has managed policies`);
      const trust = this.resolve(role.Properties?.AssumeRolePolicyDocument) as unknown as {
        Statement: {
          Effect: string;
          Principal?: { Service?: string | string[] };
          Condition?: { StringEquals?: Record<string, string> };
        }[];
      };
      const services = trust.Statement.filter(
        (statement) =>
          statement.Effect === 'Allow' &&
          [undefined, LOCAL_ACCOUNT].includes(
            statement.Condition?.StringEquals?.['aws:SourceAccount'],
          ),
      ).flatMap((statement) => {
        const service = statement.Principal?.Service;
        return service === undefined ? [] : Array.isArray(service) ? service : [service];
      });
      return {
        logicalId,
        roleArn,
        policy: { Version: '2012-10-17', Statement: this.#roleStatements(logicalId, role) },
        trustedServices: services,
      };
    }
    return undefined;
  }

  /** Logical ids and resources of one type. */
  ofType(type: string): [string, TemplateResource][] {
    return Object.entries(this.resources).filter(([, resource]) => resource.Type === type);
  }

  /** The one resource of a type; throws when there is none or several. */
  single(type: string): [string, TemplateResource] {
    const found = this.ofType(type);
    const [first] = found;
    if (found.length !== 1 || !first)
      throw new TemplateError(`expected one ${type}, found ${found.length}`);
    return first;
  }

  /**
   * Resolves any template value for the local cloud, dynamic references to the template's
   * generated secrets included, as CloudFormation resolves them while deploying.
   */
  resolve(value: unknown): Resolved {
    return this.#dynamic(resolveValue(value, this.reference, this.mappings, this.conditions));
  }

  /** Resolves a template value that must be a string. */
  resolveString(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    if (typeof resolved !== 'string') {
      throw new TemplateError(`expected a string, got ${JSON.stringify(resolved)}`);
    }
    return resolved;
  }

  /**
   * `{{resolve:secretsmanager:<arn>:SecretString:::}}` in resolved strings, replaced by the
   * value the local cloud drew for that secret; another kind of dynamic reference, a JSON
   * key or a version, or a secret without a value fails loudly.
   */
  #dynamic(value: Resolved): Resolved {
    if (typeof value === 'string') {
      return value.replace(
        /\{\{resolve:([a-z-]+):([^}]*)\}\}/g,
        (whole, service: string, rest: string) => {
          if (service !== 'secretsmanager')
            throw new TemplateError(`the local cloud cannot resolve ${whole}`);
          const parts = /^(.*?)(?::SecretString:([^:]*):([^:]*):([^:]*))?$/.exec(rest);
          const [, id = '', key = '', stage = '', version = ''] = parts ?? [];
          if (key || stage || version)
            throw new TemplateError(`the local cloud resolves whole secrets only: ${whole}`);
          const secret = this.ids.secrets?.get(id);
          if (secret === undefined) throw new TemplateError(`no local value for secret ${id}`);
          return secret;
        },
      );
    }
    if (Array.isArray(value)) return value.map((item) => this.#dynamic(item));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, this.#dynamic(item)]),
      );
    return value;
  }

  /** What `Ref` and `Fn::GetAtt` of a logical id mean locally. */
  readonly reference = (logicalId: string, attribute?: string): string => {
    const extra = this.ids.extra?.(logicalId, attribute);
    if (extra !== undefined) return extra;
    const resource = this.resources[logicalId];
    if (!resource) throw new TemplateError(`reference to unknown resource ${logicalId}`);
    const p = resource.Properties ?? {};
    const named = (property: string): string =>
      typeof p[property] === 'string' ? (p[property] as string) : `${this.stackName}-${logicalId}`;
    const unknown = (): never => {
      throw new TemplateError(
        `the local cloud cannot resolve ${attribute ? `GetAtt ${logicalId}.${attribute}` : `Ref ${logicalId}`} (${resource.Type})`,
      );
    };
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table': {
        const name =
          typeof p.TableName === 'string' || !this.ids.tableSuffix
            ? named('TableName')
            : `${this.stackName}-${logicalId}-${this.ids.tableSuffix}`;
        if (!attribute) return name;
        if (attribute === 'Arn') return arn('dynamodb', `table/${name}`);
        // The label DynamoDB gives the stream when the table is created (withIds supplies it).
        if (attribute === 'StreamArn' && this.ids.streamLabel) {
          return arn('dynamodb', `table/${name}/stream/${this.ids.streamLabel}`);
        }
        return unknown();
      }
      case 'AWS::Logs::LogGroup': {
        const name = named('LogGroupName');
        if (!attribute) return name;
        if (attribute === 'Arn') return arn('logs', `log-group:${name}:*`);
        return unknown();
      }
      case 'AWS::IAM::Role': {
        const name = named('RoleName');
        if (!attribute) return name;
        if (attribute === 'Arn') return `arn:aws:iam::${LOCAL_ACCOUNT}:role/${name}`;
        return unknown();
      }
      case 'AWS::Lambda::Function': {
        const name = named('FunctionName');
        if (!attribute) return name;
        if (attribute === 'Arn') return arn('lambda', `function:${name}`);
        return unknown();
      }
      case 'AWS::SQS::Queue': {
        // CloudFormation names a FIFO queue it names itself with the suffix SQS requires.
        const fifo = p.FifoQueue === true || p.FifoQueue === 'true';
        const name =
          typeof p.QueueName === 'string'
            ? p.QueueName
            : `${this.stackName}-${logicalId}${fifo ? '.fifo' : ''}`;
        if (attribute === 'Arn') return arn('sqs', name);
        if (attribute === 'QueueName') return name;
        if (!attribute)
          return `${this.ids.endpoint ?? 'http://127.0.0.1'}/${LOCAL_ACCOUNT}/${name}`;
        return unknown();
      }
      case 'AWS::Scheduler::ScheduleGroup': {
        const name = named('Name');
        if (!attribute) return name;
        if (attribute === 'Arn') return arn('scheduler', `schedule-group/${name}`);
        return unknown();
      }
      case 'AWS::Events::Rule': {
        const name = named('Name');
        if (!attribute) return name;
        // A rule on a bus of its own has the bus in its ARN.
        const bus = p.EventBusName === undefined ? undefined : this.resolveString(p.EventBusName);
        if (attribute === 'Arn')
          return arn('events', bus && bus !== 'default' ? `rule/${bus}/${name}` : `rule/${name}`);
        return unknown();
      }
      case 'AWS::Events::EventBus': {
        const name = named('Name');
        if (!attribute || attribute === 'Name') return name;
        if (attribute === 'Arn') return arn('events', `event-bus/${name}`);
        return unknown();
      }
      case 'AWS::SES::ConfigurationSet':
        if (!attribute) return named('Name');
        return unknown();
      case 'AWS::SNS::Topic': {
        const topicArn = arn('sns', named('TopicName'));
        if (!attribute || attribute === 'TopicArn') return topicArn;
        if (attribute === 'TopicName') return named('TopicName');
        return unknown();
      }
      case 'AWS::Cognito::UserPool':
      case 'AWS::Cognito::UserPoolClient': {
        const id = this.ids.cognito?.get(logicalId);
        if (id === undefined) return unknown();
        if (!attribute) return id;
        if (attribute === 'Arn' && resource.Type === 'AWS::Cognito::UserPool')
          return arn('cognito-idp', `userpool/${id}`);
        return unknown();
      }
      case 'AWS::Cognito::UserPoolGroup':
        if (!attribute && typeof p.GroupName === 'string') return p.GroupName;
        return unknown();
      case 'AWS::ApiGateway::RestApi':
        if (!attribute) return 'local';
        if (attribute === 'RootResourceId') return '';
        return unknown();
      case 'AWS::ApiGateway::Stage':
        if (!attribute) return named('StageName');
        return unknown();
      case 'AWS::SecretsManager::Secret':
        // Secrets Manager appends six random characters to a secret's name in its ARN.
        if (!attribute) return arn('secretsmanager', `secret:${named('Name')}-LOCAL1`);
        return unknown();
      case 'AWS::WAFv2::WebACL': {
        const scope = p.Scope === 'CLOUDFRONT' ? 'global' : 'regional';
        const id = `${named('Name')}/00000000-0000-4000-8000-${logicalId.slice(-12).padStart(12, '0').toLowerCase()}`;
        if (attribute === 'Arn') return arn('wafv2', `${scope}/webacl/${id}`);
        return unknown();
      }
      case 'AWS::CloudFront::Function':
        if (attribute === 'FunctionARN')
          return `arn:aws:cloudfront::${LOCAL_ACCOUNT}:function/${named('Name')}`;
        return unknown();
      case 'AWS::CloudFront::Distribution':
        if (!attribute) return logicalId;
        if (attribute === 'DomainName') return `${logicalId.toLowerCase()}.cloudfront.net`;
        return unknown();
      case 'AWS::ApiGateway::Resource':
        if (!attribute) return logicalId;
        return unknown();
      default:
        if (!attribute) return logicalId;
        return unknown();
    }
  };

  /**
   * The stack's Cognito user pools with their app clients and groups, as the local cloud
   * creates them in the Cognito stand-in: the properties it has a use for (how people sign in,
   * the password policy, MFA; the clients' flows and token lifetimes), the rest ignored.
   */
  userPools(): DeployedUserPool[] {
    return this.ofType('AWS::Cognito::UserPool').map(([logicalId, pool]) => {
      const p = pool.Properties ?? {};
      const ofPool = (resource: TemplateResource): boolean =>
        logicalIdOf(resource.Properties?.UserPoolId) === logicalId;
      return {
        logicalId,
        name:
          typeof p.UserPoolName === 'string' ? p.UserPoolName : `${this.stackName}-${logicalId}`,
        properties: Object.fromEntries(
          ['UsernameAttributes', 'AutoVerifiedAttributes', 'MfaConfiguration', 'Policies']
            .filter((name) => p[name] !== undefined)
            .map((name) => [name, this.resolve(p[name])]),
        ),
        clients: this.ofType('AWS::Cognito::UserPoolClient')
          .filter(([, client]) => ofPool(client))
          .map(([clientId, client]) => {
            const c = client.Properties ?? {};
            return {
              logicalId: clientId,
              name: typeof c.ClientName === 'string' ? c.ClientName : clientId,
              properties: Object.fromEntries(
                [
                  'ExplicitAuthFlows',
                  'IdTokenValidity',
                  'AccessTokenValidity',
                  'RefreshTokenValidity',
                  'TokenValidityUnits',
                ]
                  .filter((name) => c[name] !== undefined)
                  .map((name) => [name, this.resolve(c[name])]),
              ),
            };
          }),
        groups: this.ofType('AWS::Cognito::UserPoolGroup')
          .filter(([, group]) => ofPool(group))
          .map(([, group]) => String(group.Properties?.GroupName)),
      };
    });
  }

  /**
   * Every Lambda function of the stack that serves it. A function CloudFormation itself runs
   * while deploying (a custom resource's provider, such as CDK's BucketDeployment) is not one:
   * the local cloud does its work (serving what it deploys) instead of running it.
   */
  functions(): DeployedFunction[] {
    const deployTime = this.#deployTimeFunctions();
    return this.ofType('AWS::Lambda::Function')
      .filter(([logicalId]) => !deployTime.has(logicalId))
      .map(([logicalId, resource]) => this.#function(logicalId, resource));
  }

  /**
   * Each serving function's source entry and bundle folder, as the synth staged them: read from
   * the template alone, without resolving what only a deployment knows (user pool ids, queue
   * URLs), for checks of the bundles themselves.
   */
  bundles(): { readonly logicalId: string; readonly entry?: string; readonly codeDir?: string }[] {
    const deployTime = this.#deployTimeFunctions();
    return this.ofType('AWS::Lambda::Function')
      .filter(([logicalId]) => !deployTime.has(logicalId))
      .map(([logicalId, resource]) => {
        const entry = resource.Metadata?.['newsletter:entry'];
        const codeDir = this.#codeDir(logicalId, resource);
        return {
          logicalId,
          ...(typeof entry === 'string' ? { entry } : {}),
          ...(codeDir !== undefined ? { codeDir } : {}),
        };
      });
  }

  /** The providers of the template's custom resources, by logical id. */
  #deployTimeFunctions(): Set<string> {
    const ids = new Set<string>();
    for (const resource of Object.values(this.resources)) {
      if (!resource.Type.startsWith('Custom::')) continue;
      const provider = logicalIdOf(resource.Properties?.ServiceToken);
      if (provider) ids.add(provider);
    }
    return ids;
  }

  /**
   * The folder of static files a BucketDeployment of the template deploys, as synth staged it
   * in the assembly (the one holding `index.html`: the console); undefined when none does.
   */
  siteFiles(): string | undefined {
    const manifests = readdirSync(this.cdkOut).filter((name) => name.endsWith('.assets.json'));
    const files: Record<string, { source?: { path?: string; packaging?: string } }> = {};
    for (const name of manifests) {
      const manifest = JSON.parse(readFileSync(join(this.cdkOut, name), 'utf8')) as {
        files?: typeof files;
      };
      Object.assign(files, manifest.files ?? {});
    }
    for (const [, deployment] of this.ofType('Custom::CDKBucketDeployment')) {
      const keys = (deployment.Properties?.SourceObjectKeys ?? []) as unknown[];
      for (const key of keys) {
        const hash = typeof key === 'string' ? key.replace(/\.zip$/, '') : '';
        const path = files[hash]?.source?.path;
        if (!path || files[hash]?.source?.packaging !== 'zip') continue;
        const dir = resolve(this.cdkOut, path);
        if (existsSync(join(dir, 'index.html'))) return dir;
      }
    }
    return undefined;
  }

  /** The function with this logical id. */
  function(logicalId: string): DeployedFunction {
    const resource = this.resources[logicalId];
    if (resource?.Type !== 'AWS::Lambda::Function')
      throw new TemplateError(`${logicalId} is not a Lambda function`);
    return this.#function(logicalId, resource);
  }

  #function(logicalId: string, resource: TemplateResource): DeployedFunction {
    const p = resource.Properties ?? {};
    const roleId = logicalIdOf(p.Role);
    const role = roleId ? this.resources[roleId] : undefined;
    if (!roleId || role?.Type !== 'AWS::IAM::Role') {
      throw new TemplateError(`function ${logicalId} has no role of this stack`);
    }
    if (role.Properties?.ManagedPolicyArns) {
      throw new TemplateError(
        `role ${roleId} has managed policies, which the local cloud cannot evaluate`,
      );
    }
    const variables = (p.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables;
    const entry = resource.Metadata?.['newsletter:entry'];
    return {
      logicalId,
      functionName: this.reference(logicalId),
      functionArn: this.reference(logicalId, 'Arn'),
      entry: typeof entry === 'string' ? entry : undefined,
      codeDir: this.#codeDir(logicalId, resource),
      handler: String(p.Handler ?? 'index.handler'),
      runtime: String(p.Runtime ?? ''),
      timeoutSeconds: Number(p.Timeout ?? 3),
      memoryMb: Number(p.MemorySize ?? 128),
      environment: Object.fromEntries(
        Object.entries(variables ?? {}).map(([name, value]) => [name, this.resolveString(value)]),
      ),
      layers: ((p.Layers ?? []) as unknown[]).map((layer) => this.resolveString(layer)),
      roleName: this.reference(roleId),
      roleArn: this.reference(roleId, 'Arn'),
      policy: { Version: '2012-10-17', Statement: this.#roleStatements(roleId, role) },
      ...(p.ReservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrency: Number(p.ReservedConcurrentExecutions) }),
    };
  }

  /** The folder of a function's bundle: its own, or that of `bundlesFrom`; none unbundled. */
  #codeDir(logicalId: string, resource: TemplateResource): string | undefined {
    const own = bundleDir(this.cdkOut, resource);
    if (own !== undefined || this.bundlesFrom === undefined) return own;
    this.#bundleSource ??= new DeployedStack(this.bundlesFrom);
    const other = this.#bundleSource.resources[logicalId];
    const entry = resource.Metadata?.['newsletter:entry'];
    const bundled = other ? bundleDir(this.bundlesFrom, other) : undefined;
    if (
      bundled === undefined ||
      entry === undefined ||
      other?.Metadata?.['newsletter:entry'] !== entry
    ) {
      throw new TemplateError(
        `function ${logicalId}: ${this.bundlesFrom} has no bundle of the same logical id and entry`,
      );
    }
    return bundled;
  }

  /** Inline statements of the role plus those of AWS::IAM::Policy resources naming it. */
  #roleStatements(roleId: string, role: TemplateResource): PolicyStatement[] {
    const documents: unknown[] = [];
    for (const policy of (role.Properties?.Policies ?? []) as { PolicyDocument: unknown }[]) {
      documents.push(policy.PolicyDocument);
    }
    for (const [, policy] of this.ofType('AWS::IAM::Policy')) {
      const roles = (policy.Properties?.Roles ?? []) as unknown[];
      if (roles.some((reference) => logicalIdOf(reference) === roleId)) {
        documents.push(policy.Properties?.PolicyDocument);
      }
    }
    return documents.flatMap(
      (document) => (this.resolve(document) as unknown as PolicyDocument).Statement,
    );
  }

  /**
   * The stack's event source mappings. Only the properties the local cloud implements are
   * accepted; any other (a batching window, parallelization, tumbling windows, ...) fails
   * loudly rather than running differently from Lambda.
   */
  streamMappings(): DeployedStreamMapping[] {
    const known = new Set([
      'BatchSize',
      'BisectBatchOnFunctionError',
      'DestinationConfig',
      'EventSourceArn',
      'FilterCriteria',
      'FunctionName',
      'FunctionResponseTypes',
      'MaximumBatchingWindowInSeconds',
      'MaximumRetryAttempts',
      'StartingPosition',
    ]);
    return this.#mappingsOf('stream').map(([logicalId, resource]) => {
      const p = resource.Properties ?? {};
      const unknown = Object.keys(p).filter((key) => !known.has(key));
      if (unknown.length > 0) {
        throw new TemplateError(`${logicalId}: the local cloud cannot run ${unknown.join(', ')}`);
      }
      if (Number(p.MaximumBatchingWindowInSeconds ?? 0) !== 0) {
        throw new TemplateError(`${logicalId}: only a batching window of 0 runs locally`);
      }
      const source = p.EventSourceArn as { 'Fn::GetAtt'?: [string, string] };
      const [tableLogicalId, attribute] = source['Fn::GetAtt'] ?? [];
      if (!tableLogicalId || attribute !== 'StreamArn') {
        throw new TemplateError(`${logicalId}: only a stream of this stack's table runs locally`);
      }
      const functionLogicalId = logicalIdOf(p.FunctionName);
      if (!functionLogicalId) throw new TemplateError(`${logicalId}: no function of this stack`);
      const destination = (p.DestinationConfig as { OnFailure?: { Destination?: unknown } })
        ?.OnFailure?.Destination;
      const filters = (
        (p.FilterCriteria as { Filters?: { Pattern: string }[] } | undefined)?.Filters ?? []
      ).map((filter) => JSON.parse(this.resolveString(filter.Pattern)) as unknown);
      return {
        logicalId,
        functionLogicalId,
        tableLogicalId,
        streamArn: this.resolveString(p.EventSourceArn),
        batchSize: Number(p.BatchSize ?? 100),
        bisectOnError: p.BisectBatchOnFunctionError === true,
        maximumRetryAttempts: Number(p.MaximumRetryAttempts ?? -1),
        reportBatchItemFailures: ((p.FunctionResponseTypes ?? []) as string[]).includes(
          'ReportBatchItemFailures',
        ),
        startingPosition: p.StartingPosition === 'LATEST' ? 'LATEST' : 'TRIM_HORIZON',
        filters,
        ...(destination ? { onFailureArn: this.resolveString(destination) } : {}),
      };
    });
  }

  /** The event source mappings reading a table's stream, or a queue. */
  #mappingsOf(kind: 'stream' | 'queue'): [string, TemplateResource][] {
    return this.ofType('AWS::Lambda::EventSourceMapping').filter(([, resource]) => {
      const source = resource.Properties?.EventSourceArn;
      const id = logicalIdOf(source);
      const isQueue = id !== undefined && this.resources[id]?.Type === 'AWS::SQS::Queue';
      return kind === 'queue' ? isQueue : !isQueue;
    });
  }

  /**
   * The stack's queue event source mappings. Only what the local Lambda service implements is
   * accepted; anything else fails loudly. What Lambda refuses when the mapping is created is
   * refused here: a batch above 10 without a batching window, a concurrency outside 2–1000,
   * and a queue whose visibility timeout is shorter than the function's timeout.
   */
  queueMappings(): DeployedQueueMapping[] {
    const known = new Set([
      'BatchSize',
      'Enabled',
      'EventSourceArn',
      'FilterCriteria',
      'FunctionName',
      'FunctionResponseTypes',
      'MaximumBatchingWindowInSeconds',
      'ScalingConfig',
      'Tags',
    ]);
    return this.#mappingsOf('queue').map(([logicalId, resource]) => {
      const p = resource.Properties ?? {};
      const unknown = Object.keys(p).filter((key) => !known.has(key));
      if (unknown.length > 0) {
        throw new TemplateError(`${logicalId}: the local cloud cannot run ${unknown.join(', ')}`);
      }
      const queueLogicalId = logicalIdOf(p.EventSourceArn) ?? '';
      const functionLogicalId = logicalIdOf(p.FunctionName);
      if (!functionLogicalId) throw new TemplateError(`${logicalId}: no function of this stack`);
      const queue = this.resources[queueLogicalId]?.Properties ?? {};
      const fifo = queue.FifoQueue === true || queue.FifoQueue === 'true';
      const batchSize = Number(p.BatchSize ?? 10);
      const window = Number(p.MaximumBatchingWindowInSeconds ?? 0);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > (fifo ? 10 : 10_000)) {
        throw new TemplateError(`${logicalId}: BatchSize ${batchSize} is out of range`);
      }
      if (!Number.isInteger(window) || window < 0 || window > 300) {
        throw new TemplateError(
          `${logicalId}: MaximumBatchingWindowInSeconds ${window} is out of range`,
        );
      }
      if (batchSize > 10 && window < 1) {
        throw new TemplateError(
          `${logicalId}: a batch size above 10 needs a batching window of at least 1 second`,
        );
      }
      const concurrency = (p.ScalingConfig as { MaximumConcurrency?: unknown } | undefined)
        ?.MaximumConcurrency;
      const maximumConcurrency = concurrency === undefined ? undefined : Number(concurrency);
      if (
        maximumConcurrency !== undefined &&
        (!Number.isInteger(maximumConcurrency) ||
          maximumConcurrency < 2 ||
          maximumConcurrency > 1000)
      ) {
        throw new TemplateError(`${logicalId}: MaximumConcurrency must be between 2 and 1000`);
      }
      const visibility = Number(this.resolve(queue.VisibilityTimeout ?? 30));
      const timeout = this.function(functionLogicalId).timeoutSeconds;
      if (visibility < timeout) {
        throw new TemplateError(
          `${logicalId}: Queue visibility timeout: ${visibility} seconds is less than Function timeout: ${timeout} seconds`,
        );
      }
      const filters = (
        (p.FilterCriteria as { Filters?: { Pattern: string }[] } | undefined)?.Filters ?? []
      ).map((filter) => JSON.parse(this.resolveString(filter.Pattern)) as unknown);
      return {
        logicalId,
        functionLogicalId,
        queueLogicalId,
        queueArn: this.reference(queueLogicalId, 'Arn'),
        batchSize,
        maximumBatchingWindowSeconds: window,
        ...(maximumConcurrency === undefined ? {} : { maximumConcurrency }),
        reportBatchItemFailures: ((p.FunctionResponseTypes ?? []) as string[]).includes(
          'ReportBatchItemFailures',
        ),
        filters,
        enabled: p.Enabled !== false && p.Enabled !== 'false',
      };
    });
  }

  /**
   * The stack's EventBridge rules that run on a schedule and target its functions. A rule on
   * an event pattern, another bus, or a target that is not a function of the stack (or has a
   * dead-letter queue or an input transformation) fails loudly.
   */
  scheduleRules(): DeployedScheduleRule[] {
    const known = new Set(['Description', 'Name', 'ScheduleExpression', 'State', 'Targets']);
    const knownTarget = new Set(['Arn', 'Id', 'Input', 'RetryPolicy']);
    const scheduled = this.ofType('AWS::Events::Rule').filter(
      ([, resource]) => resource.Properties?.EventPattern === undefined,
    );
    return scheduled.map(([logicalId, resource]) => {
      const p = resource.Properties ?? {};
      const unknown = Object.keys(p).filter((key) => !known.has(key));
      if (unknown.length > 0 || typeof p.ScheduleExpression !== 'string') {
        throw new TemplateError(
          `${logicalId}: the local cloud runs scheduled rules only (not ${unknown.join(', ') || 'a rule without a schedule'})`,
        );
      }
      const targets = ((p.Targets ?? []) as Record<string, unknown>[]).map((target) => {
        const functionLogicalId = logicalIdOf(target.Arn);
        const extra = Object.keys(target).filter((key) => !knownTarget.has(key));
        if (
          !functionLogicalId ||
          this.resources[functionLogicalId]?.Type !== 'AWS::Lambda::Function' ||
          extra.length > 0
        ) {
          throw new TemplateError(
            `${logicalId}: the local cloud runs targets that are functions of this stack, without ${extra.join(', ') || 'anything else'}`,
          );
        }
        return {
          id: String(target.Id),
          functionLogicalId,
          ...(target.Input === undefined
            ? {}
            : { input: JSON.parse(this.resolveString(target.Input)) as unknown }),
        };
      });
      return {
        logicalId,
        name: this.reference(logicalId),
        arn: this.reference(logicalId, 'Arn'),
        scheduleExpression: p.ScheduleExpression,
        enabled: p.State === undefined || p.State === 'ENABLED',
        targets,
      };
    });
  }

  /** The names of the stack's EventBridge buses. */
  eventBuses(): string[] {
    return this.ofType('AWS::Events::EventBus').map(([logicalId]) => this.reference(logicalId));
  }

  /**
   * The stack's EventBridge rules on an event pattern: on a bus of the stack, targeting its
   * queues or its functions, with nothing else (an input transformation, a dead-letter queue
   * or a role fails loudly).
   */
  patternRules(): DeployedPatternRule[] {
    const known = new Set([
      'Description',
      'Name',
      'EventBusName',
      'EventPattern',
      'State',
      'Targets',
    ]);
    const knownTarget = new Set(['Arn', 'Id', 'RetryPolicy']);
    const rules = this.ofType('AWS::Events::Rule').filter(
      ([, resource]) => resource.Properties?.EventPattern !== undefined,
    );
    return rules.map(([logicalId, resource]) => {
      const p = resource.Properties ?? {};
      const unknown = Object.keys(p).filter((key) => !known.has(key));
      if (unknown.length > 0)
        throw new TemplateError(`${logicalId}: the local cloud cannot run ${unknown.join(', ')}`);
      const targets = ((p.Targets ?? []) as Record<string, unknown>[]).map((target) => {
        const extra = Object.keys(target).filter((key) => !knownTarget.has(key));
        const targetId = logicalIdOf(target.Arn);
        const type = targetId ? this.resources[targetId]?.Type : undefined;
        if (extra.length > 0 || (type !== 'AWS::SQS::Queue' && type !== 'AWS::Lambda::Function'))
          throw new TemplateError(
            `${logicalId}: the local cloud delivers to the stack's queues and functions, without ${extra.join(', ') || 'anything else'}`,
          );
        return {
          id: String(target.Id),
          ...(type === 'AWS::SQS::Queue'
            ? { queueArn: this.resolveString(target.Arn) }
            : { functionLogicalId: targetId as string }),
        };
      });
      return {
        logicalId,
        name: this.reference(logicalId),
        arn: this.reference(logicalId, 'Arn'),
        busName: p.EventBusName === undefined ? 'default' : this.resolveString(p.EventBusName),
        pattern: this.resolve(p.EventPattern),
        enabled: p.State === undefined || p.State === 'ENABLED',
        targets,
      };
    });
  }

  /**
   * The stack's SES configuration sets with their event destinations. Only what the local SES
   * implements is accepted (SNS destinations; sending enabled; reputation metrics, which only
   * feed CloudWatch); anything else fails loudly.
   */
  configurationSets(): DeployedConfigurationSet[] {
    // TrackingOptions (a custom redirect domain) is accepted: the local SES tracks through its
    // own loopback address, as a custom domain needs DNS and a certificate.
    const known = new Set(['Name', 'ReputationOptions', 'SendingOptions', 'TrackingOptions']);
    const destinations = this.ofType('AWS::SES::ConfigurationSetEventDestination').map(
      ([logicalId, resource]) => {
        const p = resource.Properties ?? {};
        const destination = (p.EventDestination ?? {}) as Record<string, unknown>;
        const kinds = Object.keys(destination).filter((key) => key.endsWith('Destination'));
        const sns = destination.SnsDestination as { TopicARN?: unknown } | undefined;
        if (kinds.length !== 1 || !sns?.TopicARN) {
          throw new TemplateError(`${logicalId}: the local cloud runs SNS event destinations only`);
        }
        return {
          set: logicalIdOf(p.ConfigurationSetName),
          name: typeof destination.Name === 'string' ? destination.Name : logicalId,
          enabled: destination.Enabled !== false,
          eventTypes: ((destination.MatchingEventTypes ?? []) as unknown[]).map(String),
          topicArn: this.resolveString(sns.TopicARN),
        };
      },
    );
    return this.ofType('AWS::SES::ConfigurationSet').map(([logicalId, resource]) => {
      const p = resource.Properties ?? {};
      const unknown = Object.keys(p).filter((key) => !known.has(key));
      const sending = (p.SendingOptions as { SendingEnabled?: boolean } | undefined)
        ?.SendingEnabled;
      if (unknown.length > 0 || sending === false) {
        throw new TemplateError(
          `${logicalId}: the local SES cannot run ${unknown.join(', ') || 'a configuration set with sending off'}`,
        );
      }
      return {
        logicalId,
        name: this.reference(logicalId),
        destinations: destinations
          .filter((destination) => destination.set === logicalId)
          .map(({ set: _set, ...destination }) => destination),
      };
    });
  }

  /** The stack's SNS topics, each with its access policy. */
  topics(): DeployedTopic[] {
    const known = new Set(['DisplayName', 'TopicName']);
    return this.ofType('AWS::SNS::Topic').map(([logicalId, resource]) => {
      const unknown = Object.keys(resource.Properties ?? {}).filter((key) => !known.has(key));
      if (unknown.length > 0) {
        throw new TemplateError(`${logicalId}: the local cloud cannot run ${unknown.join(', ')}`);
      }
      const statements = this.ofType('AWS::SNS::TopicPolicy')
        .filter(([, policy]) =>
          ((policy.Properties?.Topics ?? []) as unknown[]).some(
            (topic) => logicalIdOf(topic) === logicalId,
          ),
        )
        .flatMap(
          ([, policy]) =>
            (this.resolve(policy.Properties?.PolicyDocument) as unknown as PolicyDocument)
              .Statement,
        );
      return {
        logicalId,
        topicArn: this.reference(logicalId),
        ...(statements.length > 0
          ? { policy: { Version: '2012-10-17', Statement: statements } }
          : {}),
      };
    });
  }

  /**
   * Subscriptions of the stack's functions and queues to topics (the two protocols that run
   * locally: `lambda`, and `sqs` with or without raw message delivery).
   */
  topicSubscriptions(): DeployedTopicSubscription[] {
    const known = new Set(['Endpoint', 'Protocol', 'TopicArn', 'RawMessageDelivery']);
    return this.ofType('AWS::SNS::Subscription').map(([logicalId, resource]) => {
      const p = resource.Properties ?? {};
      const unknown = Object.keys(p).filter((key) => !known.has(key));
      const target = findGetAtt(p.Endpoint, 'Arn');
      const topicArn = this.resolveString(p.TopicArn);
      if (unknown.length === 0 && target && p.Protocol === 'lambda' && !p.RawMessageDelivery)
        return { logicalId, topicArn, functionLogicalId: target };
      if (unknown.length === 0 && target && p.Protocol === 'sqs')
        return {
          logicalId,
          topicArn,
          queueArn: this.reference(target, 'Arn'),
          raw: p.RawMessageDelivery === true || p.RawMessageDelivery === 'true',
        };
      throw new TemplateError(
        `${logicalId}: the local cloud runs lambda and sqs subscriptions of its own resources only`,
      );
    });
  }

  /**
   * The functions' asynchronous invocation settings. Only retries and an on-failure queue run
   * locally; anything else (an event age limit, an on-success destination) fails loudly.
   */
  asyncInvokeConfigs(): DeployedAsyncInvokeConfig[] {
    const known = new Set([
      'DestinationConfig',
      'FunctionName',
      'MaximumRetryAttempts',
      'Qualifier',
    ]);
    return this.ofType('AWS::Lambda::EventInvokeConfig').map(([logicalId, resource]) => {
      const p = resource.Properties ?? {};
      const unknown = Object.keys(p).filter((key) => !known.has(key));
      const functionLogicalId = logicalIdOf(p.FunctionName);
      const destinations = (p.DestinationConfig ?? {}) as {
        OnFailure?: { Destination?: unknown };
        OnSuccess?: unknown;
      };
      if (unknown.length > 0 || !functionLogicalId || destinations.OnSuccess !== undefined) {
        throw new TemplateError(
          `${logicalId}: the local cloud runs retries and an on-failure queue of its own functions only`,
        );
      }
      const destination = destinations.OnFailure?.Destination;
      return {
        functionLogicalId,
        maximumRetryAttempts: Number(p.MaximumRetryAttempts ?? 2),
        ...(destination ? { onFailureArn: this.resolveString(destination) } : {}),
      };
    });
  }

  /** Lambda permissions that let `principal` (a service) invoke functions of the stack. */
  invokePermissionsFor(principal: string): InvokePermission[] {
    return this.ofType('AWS::Lambda::Permission')
      .filter(
        ([, permission]) =>
          permission.Properties?.Principal === principal &&
          permission.Properties?.Action === 'lambda:InvokeFunction',
      )
      .map(([, permission]) => ({
        functionLogicalId: logicalIdOf(permission.Properties?.FunctionName) ?? '',
        sourceArn: this.resolveString(permission.Properties?.SourceArn),
      }));
  }

  /**
   * The stack's SQS queues, with the attributes CloudFormation creates them with and their
   * access policies. A KMS key fails loudly: its grants (kms:GenerateDataKey to send,
   * kms:Decrypt to receive) are not checked locally. SQS-managed encryption needs none.
   */
  queues(): DeployedQueue[] {
    const attributes = new Set([
      'ContentBasedDeduplication',
      'DeduplicationScope',
      'DelaySeconds',
      'FifoQueue',
      'FifoThroughputLimit',
      'MaximumMessageSize',
      'MessageRetentionPeriod',
      'ReceiveMessageWaitTimeSeconds',
      'RedriveAllowPolicy',
      'RedrivePolicy',
      'SqsManagedSseEnabled',
      'VisibilityTimeout',
    ]);
    const policies = this.ofType('AWS::SQS::QueuePolicy');
    return this.ofType('AWS::SQS::Queue').map(([logicalId, resource]) => {
      const p = resource.Properties ?? {};
      const unknown = Object.keys(p).filter(
        (key) => !attributes.has(key) && key !== 'QueueName' && key !== 'Tags',
      );
      if (unknown.length > 0) {
        throw new TemplateError(`${logicalId}: the local cloud cannot run ${unknown.join(', ')}`);
      }
      const values: Record<string, string> = {};
      for (const [key, value] of Object.entries(p)) {
        if (!attributes.has(key)) continue;
        const resolved = this.resolve(value);
        values[key] = typeof resolved === 'object' ? JSON.stringify(resolved) : String(resolved);
      }
      const statements = policies
        .filter(([, policy]) =>
          ((policy.Properties?.Queues ?? []) as unknown[]).some(
            (queue) => logicalIdOf(queue) === logicalId,
          ),
        )
        .flatMap(
          ([, policy]) =>
            (this.resolve(policy.Properties?.PolicyDocument) as unknown as PolicyDocument)
              .Statement,
        );
      const redrive = p.RedrivePolicy as { deadLetterTargetArn?: unknown } | undefined;
      const deadLetterQueueLogicalId = logicalIdOf(redrive?.deadLetterTargetArn);
      return {
        logicalId,
        name: this.reference(logicalId, 'QueueName'),
        arn: this.reference(logicalId, 'Arn'),
        attributes: values,
        ...(statements.length > 0
          ? { policy: { Version: '2012-10-17', Statement: statements } }
          : {}),
        ...(deadLetterQueueLogicalId ? { deadLetterQueueLogicalId } : {}),
      };
    });
  }

  /** The REST API: its stage, methods by path, gateway responses and invoke permissions. */
  api(): DeployedApi {
    const [restApiId, restApi] = this.single('AWS::ApiGateway::RestApi');
    const [, stage] = this.single('AWS::ApiGateway::Stage');
    const paths = new Map<string, string>([[restApiId, '']]);
    const pathOf = (parent: unknown): string => {
      const parentId = logicalIdOf(parent);
      if (parentId === undefined || parentId === restApiId) return '';
      const known = paths.get(parentId);
      if (known !== undefined) return known;
      const resource = this.resources[parentId];
      if (resource?.Type !== 'AWS::ApiGateway::Resource')
        throw new TemplateError(`unknown API resource ${parentId}`);
      const path = `${pathOf(resource.Properties?.ParentId)}/${String(resource.Properties?.PathPart)}`;
      paths.set(parentId, path);
      return path;
    };
    const methods: ApiMethod[] = this.ofType('AWS::ApiGateway::Method').map(([id, method]) => {
      const p = method.Properties ?? {};
      return {
        path: pathOf(p.ResourceId) || '/',
        httpMethod: String(p.HttpMethod),
        integration: this.#integration(id, p.Integration as Record<string, unknown>),
      };
    });
    const gatewayResponses = new Map<string, GatewayResponse>();
    for (const [, response] of this.ofType('AWS::ApiGateway::GatewayResponse')) {
      const p = response.Properties ?? {};
      gatewayResponses.set(String(p.ResponseType), {
        statusCode: p.StatusCode === undefined ? undefined : Number(p.StatusCode),
        headers: headerMappings(p.ResponseParameters, 'gatewayresponse.header.', true),
        templates: (p.ResponseTemplates ?? {}) as Record<string, string>,
      });
    }
    const invokePermissions = this.ofType('AWS::Lambda::Permission')
      .filter(([, permission]) => permission.Properties?.Principal === 'apigateway.amazonaws.com')
      .map(([, permission]) => ({
        functionLogicalId: logicalIdOf(permission.Properties?.FunctionName) ?? '',
        sourceArn: this.resolveString(permission.Properties?.SourceArn),
      }));
    const settings = (stage.Properties?.MethodSettings ?? []) as Record<string, unknown>[];
    const throttleOf = (setting: Record<string, unknown> | undefined) =>
      typeof setting?.ThrottlingRateLimit === 'number' &&
      typeof setting.ThrottlingBurstLimit === 'number'
        ? { rate: setting.ThrottlingRateLimit, burst: setting.ThrottlingBurstLimit }
        : undefined;
    const throttle = throttleOf(
      settings.find((setting) => setting.HttpMethod === '*' && setting.ResourcePath === '/*'),
    );
    // A method's own settings: `/` then its resource path with `/` escaped as `~1`
    // (`/~1newsletter~1v1~1subscribe` is `/newsletter/v1/subscribe`), as API Gateway has it.
    const methodThrottles = new Map<string, { rate: number; burst: number }>();
    for (const setting of settings) {
      if (setting.HttpMethod === '*' || setting.ResourcePath === '/*') continue;
      const own = throttleOf(setting);
      if (!own) continue;
      const path = String(setting.ResourcePath).slice(1).replaceAll('~1', '/');
      methodThrottles.set(`${path} ${String(setting.HttpMethod)}`, own);
    }
    const [stageId] = this.single('AWS::ApiGateway::Stage');
    const association = this.ofType('AWS::WAFv2::WebACLAssociation').find(([, resource]) =>
      JSON.stringify(resource.Properties?.ResourceArn ?? '').includes(`"${stageId}"`),
    );
    const aclId = logicalIdOf(association?.[1].Properties?.WebACLArn);
    return {
      ...(throttle ? { throttle } : {}),
      ...(methodThrottles.size > 0 ? { methodThrottles } : {}),
      ...(aclId ? { webAcl: this.webAcl(aclId) } : {}),
      restApiId: this.reference(restApiId),
      stage: String(stage.Properties?.StageName),
      binaryMediaTypes: (restApi.Properties?.BinaryMediaTypes ?? []) as string[],
      methods,
      gatewayResponses,
      invokePermissions,
    };
  }

  #integration(methodId: string, integration: Record<string, unknown>): ApiIntegration {
    switch (integration.Type) {
      case 'AWS_PROXY': {
        const functionLogicalId = findGetAtt(integration.Uri, 'Arn');
        if (!functionLogicalId)
          throw new TemplateError(`method ${methodId} integrates no function of this stack`);
        return { kind: 'lambda', functionLogicalId };
      }
      case 'MOCK': {
        const responses = (integration.IntegrationResponses ?? []) as Record<string, unknown>[];
        return {
          kind: 'mock',
          requestTemplates: (integration.RequestTemplates ?? {}) as Record<string, string>,
          passthrough: String(integration.PassthroughBehavior ?? 'WHEN_NO_MATCH'),
          responses: responses.map((response) => ({
            statusCode: String(response.StatusCode),
            ...(typeof response.SelectionPattern === 'string'
              ? { selectionPattern: response.SelectionPattern }
              : {}),
            headers: staticHeaders(
              headerMappings(response.ResponseParameters, 'method.response.header.', false),
            ),
            templates: (response.ResponseTemplates ?? {}) as Record<string, string>,
          })),
        };
      }
      default:
        throw new TemplateError(
          `method ${methodId}: the local cloud cannot run ${String(integration.Type)} integrations`,
        );
    }
  }

  /** A web ACL of the template by logical id, resolved (secrets included). */
  webAcl(logicalId: string): DeployedWebAcl {
    const resource = this.resources[logicalId];
    if (resource?.Type !== 'AWS::WAFv2::WebACL')
      throw new TemplateError(`${logicalId} is no web ACL of the stack (or its condition fails)`);
    const properties = this.resolve(resource.Properties) as Record<string, Resolved>;
    return {
      logicalId,
      scope: properties.Scope === 'CLOUDFRONT' ? 'CLOUDFRONT' : 'REGIONAL',
      properties,
    };
  }

  /** The secrets the template has Secrets Manager draw, with how to draw them. */
  generatedSecrets(): GeneratedSecret[] {
    return this.ofType('AWS::SecretsManager::Secret').map(([logicalId, resource]) => {
      const generate = resource.Properties?.GenerateSecretString as
        | Record<string, unknown>
        | undefined;
      if (!generate || resource.Properties?.SecretString !== undefined)
        throw new TemplateError(
          `secret ${logicalId}: the local cloud draws generated secrets only`,
        );
      const known = new Set(['PasswordLength', 'ExcludePunctuation', 'IncludeSpace']);
      const unknown = Object.keys(generate).filter((key) => !known.has(key));
      if (unknown.length > 0 || generate.IncludeSpace === true)
        throw new TemplateError(
          `secret ${logicalId}: the local cloud cannot draw ${unknown.join(', ') || 'spaces'}`,
        );
      return {
        logicalId,
        arn: this.reference(logicalId),
        length: Number(generate.PasswordLength ?? 32),
        excludePunctuation: generate.ExcludePunctuation === true,
      };
    });
  }

  /**
   * The distribution's API behaviour: the one whose origin is this stack's REST API. Its path
   * pattern, methods, the origin's custom headers, its viewer-request function's code, and the
   * distribution's web ACL; none when the stack has no distribution.
   */
  distribution(): DeployedDistribution | undefined {
    const distributions = this.ofType('AWS::CloudFront::Distribution');
    const [found] = distributions;
    if (!found) return undefined;
    if (distributions.length > 1)
      throw new TemplateError('the local cloud serves one distribution');
    const [logicalId, resource] = found;
    const config = resource.Properties?.DistributionConfig as Record<string, unknown>;
    const [restApiId] = this.single('AWS::ApiGateway::RestApi');
    const origins = (config.Origins ?? []) as Record<string, unknown>[];
    const apiOrigin = origins.find((origin) =>
      JSON.stringify(origin.DomainName ?? '').includes(`{"Ref":"${restApiId}"}`),
    );
    if (!apiOrigin) throw new TemplateError(`${logicalId} has no origin of the REST API`);
    const behaviours = (config.CacheBehaviors ?? []) as Record<string, unknown>[];
    const behaviour = behaviours.find((each) => each.TargetOriginId === apiOrigin.Id);
    if (!behaviour) throw new TemplateError(`${logicalId} has no behaviour for the REST API`);
    const headers = (apiOrigin.OriginCustomHeaders ?? []) as {
      HeaderName: string;
      HeaderValue: unknown;
    }[];
    const associations = (behaviour.FunctionAssociations ?? []) as Record<string, unknown>[];
    const viewerRequest = associations.find((each) => each.EventType === 'viewer-request');
    if (associations.some((each) => each.EventType !== 'viewer-request'))
      throw new TemplateError(`${logicalId}: the local cloud runs viewer-request functions only`);
    const functionId = logicalIdOf(viewerRequest?.FunctionARN);
    const code = functionId ? this.resources[functionId]?.Properties?.FunctionCode : undefined;
    const webAclArn = config.WebACLId === undefined ? '' : this.resolveString(config.WebACLId);
    const webAclId = webAclArn
      ? this.ofType('AWS::WAFv2::WebACL').find(
          ([id]) => this.reference(id, 'Arn') === webAclArn,
        )?.[0]
      : undefined;
    if (webAclArn && !webAclId)
      throw new TemplateError(`${logicalId}: its web ACL ${webAclArn} is not of this stack`);
    return {
      logicalId,
      apiPathPattern: String(behaviour.PathPattern),
      apiMethods: (behaviour.AllowedMethods ?? ['GET', 'HEAD']) as string[],
      originHeaders: Object.fromEntries(
        headers.map((header) => [
          header.HeaderName.toLowerCase(),
          this.resolveString(header.HeaderValue),
        ]),
      ),
      ...(typeof code === 'string' ? { viewerRequestCode: code } : {}),
      ...(webAclId ? { webAcl: this.webAcl(webAclId) } : {}),
    };
  }

  /** The CreateTable input of the stack's table, as CloudFormation would create it. */
  tableDefinition(logicalId?: string): {
    readonly logicalId: string;
    readonly tableName: string;
    readonly properties: Record<string, unknown>;
  } {
    const [id, table] = logicalId
      ? [logicalId, this.resources[logicalId]]
      : this.single('AWS::DynamoDB::Table');
    if (table?.Type !== 'AWS::DynamoDB::Table') throw new TemplateError(`${id} is not a table`);
    return {
      logicalId: id,
      tableName: this.reference(id),
      properties: this.resolve(table.Properties) as Record<string, unknown>,
    };
  }
}

/**
 * Header values of a mapping: static (`'value'`), or, where `fromRequest`, a request header
 * (`method.request.header.Origin`). Anything else fails loudly.
 */
function headerMappings(
  parameters: unknown,
  prefix: string,
  fromRequest: boolean,
): Record<string, HeaderSource> {
  const headers: Record<string, HeaderSource> = {};
  for (const [key, value] of Object.entries((parameters ?? {}) as Record<string, unknown>)) {
    if (!key.startsWith(prefix) || typeof value !== 'string') continue;
    const literal = /^'(.*)'$/s.exec(value);
    const requestHeader = /^method\.request\.header\.(.+)$/.exec(value);
    if (literal) headers[key.slice(prefix.length)] = literal[1] ?? '';
    else if (fromRequest && requestHeader?.[1])
      headers[key.slice(prefix.length)] = { requestHeader: requestHeader[1] };
    else throw new TemplateError(`header mapping ${key} = ${value}: the local cloud cannot map it`);
  }
  return headers;
}

function staticHeaders(headers: Record<string, HeaderSource>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => {
      if (typeof value !== 'string') throw new TemplateError(`${name}: not a static header`);
      return [name, value];
    }),
  );
}

/** The logical id a `Ref` or `Fn::GetAtt` points at, if the value is one. */
export function logicalIdOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.Ref === 'string') return record.Ref;
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return String(getAtt[0]);
  return undefined;
}

/** The first logical id inside `value` referenced with `Fn::GetAtt [id, attribute]`. */
function findGetAtt(value: unknown, attribute: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const getAtt = (value as Record<string, unknown>)['Fn::GetAtt'];
  if (Array.isArray(getAtt) && getAtt[1] === attribute) return String(getAtt[0]);
  for (const item of Object.values(value as Record<string, unknown>)) {
    const found = findGetAtt(item, attribute);
    if (found) return found;
  }
  return undefined;
}
