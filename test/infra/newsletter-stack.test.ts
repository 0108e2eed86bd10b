import type { CfnElement } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { campaignFunctions } from '../../functions/campaigns/campaign-functions.ts';
import { webhookDeliverer } from '../../functions/events/event-functions.ts';
import { ORIGIN_SECRETS_ENV } from '../../functions/http/client-address.ts';
import { CORS_ORIGINS_ENV } from '../../functions/http/cors.ts';
import { type Route, routes } from '../../functions/routes.ts';
import { streamConsumers } from '../../functions/streams/consumers.ts';
import { parameterReads } from '../../infra/cdk/route-access-policy.ts';
import {
  INDEX,
  KEY,
  LISTED_ATTRIBUTES,
  TTL_ATTRIBUTE,
} from '../../shared/adapters/store/table-design.ts';
import { ERROR_STATUS } from '../../shared/domain/errors.ts';
import { EVENT_SOURCE } from '../../shared/domain/events/event-catalogue.ts';
import { ENV, ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { EVENTS_ENV } from '../../shared/runtime/events-environment.ts';
import { CONTRACT_ENDPOINTS, V2_CONTRACT_ENDPOINTS } from '../support/contract.ts';
import { buildApp, resourcesOfType, type TemplateResource } from './build-app.ts';

// Arrange once: synthesising costs seconds, every test reads the same template.
const { stack, template } = buildApp();
const resources = template.toJSON().Resources as Record<string, TemplateResource>;

interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
const logicalId = (element: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);

function functionOf(route: Route): TemplateResource {
  const handler = stack.functions.get(route.name);
  if (!handler) throw new Error(`no function for route ${route.name}`);
  const resource = resources[logicalId(handler)];
  if (!resource) throw new Error(`function of ${route.name} is not in the template`);
  return resource;
}

/** `METHOD /path` of every API method whose integration has the given type. */
function methodsOf(integrationType: string): string[] {
  const apiResources = resourcesOfType(template, 'AWS::ApiGateway::Resource');
  const pathOf = (id: string): string => {
    const resource = apiResources.get(id);
    if (!resource) throw new Error(`unknown API resource ${id}`);
    const parent = resource.Properties.ParentId as { Ref?: string };
    return `${parent.Ref ? pathOf(parent.Ref) : ''}/${String(resource.Properties.PathPart)}`;
  };
  return [...resourcesOfType(template, 'AWS::ApiGateway::Method').values()]
    .filter(
      (method) => (method.Properties.Integration as { Type: string }).Type === integrationType,
    )
    .map((method) => {
      const target = method.Properties.ResourceId as { Ref?: string };
      return `${String(method.Properties.HttpMethod)} ${target.Ref ? pathOf(target.Ref) : '/'}`;
    })
    .sort();
}

/**
 * The functions CloudFormation runs while deploying (custom resources' providers: CDK's
 * BucketDeployment of the console), and their roles: not the service's functions.
 */
const deployTime = new Set(
  Object.values(resources)
    .filter((resource) => resource.Type.startsWith('Custom::'))
    .map(
      (resource) =>
        (resource.Properties?.ServiceToken as { 'Fn::GetAtt'?: string[] })?.['Fn::GetAtt']?.[0],
    )
    .filter((id): id is string => id !== undefined),
);
const deployTimeRoles = new Set(
  [...deployTime].map(
    (id) =>
      ((resources[id]?.Properties?.Role as { 'Fn::GetAtt'?: string[] })?.['Fn::GetAtt'] ?? [])[0],
  ),
);

describe('functions', () => {
  it('has exactly one function per route, on Node.js 22 or newer and arm64', () => {
    // Arrange / Act
    const functions = new Map(
      [...resourcesOfType(template, 'AWS::Lambda::Function')].filter(([id]) => !deployTime.has(id)),
    );
    expect(deployTime.size).toBe(1);
    // Assert: one per route, one per stream consumer, the SES feedback function, the
    // campaign engine's functions, the engagement recorder and its eraser, the event publisher,
    // the webhook deliverer and its retry sweep.
    expect(functions.size).toBe(
      routes.length + streamConsumers.length + 1 + campaignFunctions.length + 2 + 1 + 2,
    );
    for (const route of routes) {
      const properties = functionOf(route).Properties;
      expect(properties.Runtime).toMatch(/^nodejs(2[2-9]|[3-9]\d)\.x$/);
      expect(properties.Architectures).toEqual(['arm64']);
      expect(properties.Handler).toBe('index.handler');
      expect(properties.MemorySize).toBe(256);
      expect(properties.Timeout).toBe(10);
      expect(properties.Description).toBe(route.summary);
    }
  });

  it('gives every function the environment the domain layer reads, CORS to the public ones', () => {
    const publicPaths = [
      ...CONTRACT_ENDPOINTS.filter((endpoint) => endpoint.cors).map(
        (endpoint) => `v1${endpoint.path}`,
      ),
      ...V2_CONTRACT_ENDPOINTS.filter((endpoint) => endpoint.cors).map(
        (endpoint) => `v2${endpoint.path}`,
      ),
    ];
    for (const route of routes) {
      const variables = (
        functionOf(route).Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      // The extension's own variables (CDK writes several) are checked in the next test.
      const ours = Object.fromEntries(
        Object.entries(variables).filter(
          ([name]) =>
            !/^(PARAMETERS_SECRETS_EXTENSION_|SSM_PARAMETER_STORE_|SECRETS_MANAGER_)/.test(name),
        ),
      );
      expect(ours).toEqual({
        [ENV.table]: { Ref: logicalId(stack.table) },
        [ENV.apiKeyParameter]: ENV_DEFAULTS.apiKeyParameter,
        [ENV.settingsParameter]: ENV_DEFAULTS.settingsParameter,
        [ENV.parameterCacheSeconds]: String(ENV_DEFAULTS.parameterCacheSeconds),
        // The origin secrets it tells a request through CloudFront by (test/infra/front-door).
        [ORIGIN_SECRETS_ENV]: expect.objectContaining({ 'Fn::Join': expect.anything() }),
        ...(publicPaths.includes(`${'version' in route ? route.version : 'v1'}${route.path}`)
          ? { [CORS_ORIGINS_ENV]: '*' }
          : {}),
        // The v2 routes that start or test a send queue work on the planner's queue.
        ...((route.access as { queues?: readonly string[] }).queues?.includes('plans')
          ? { [ENV.campaignPlans]: expect.anything() }
          : {}),
        // The v2 route that schedules sends: the stack's group, starter, role and dead letters.
        ...((route.access as { schedules?: boolean }).schedules
          ? {
              [ENV.scheduleGroup]: { Ref: stack.getLogicalId(stack.campaigns.schedules.group) },
              [ENV.scheduleTarget]: expect.anything(),
              [ENV.scheduleRole]: expect.anything(),
              [ENV.scheduleDeadLetters]: expect.anything(),
            }
          : {}),
        // Every v2 route accepts the console's ID tokens: whose pool and client ([console.token]).
        ...('version' in route && route.version === 'v2'
          ? {
              [ENV.userPoolId]: { Ref: logicalId(stack.people.userPool) },
              [ENV.userPoolClientId]: { Ref: logicalId(stack.people.client) },
            }
          : {}),
      });
    }
  });

  it('[config.parameter-cache] gives the Parameters and Secrets extension, its cache off, exactly to the functions that read parameters', () => {
    for (const route of routes) {
      const properties = functionOf(route).Properties;
      const variables = (properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      const layers = (properties.Layers ?? []) as { 'Fn::FindInMap': unknown[] }[];
      if (parameterReads(route).readsSettings) {
        expect(layers).toHaveLength(1);
        const [map, , key] = layers[0]?.['Fn::FindInMap'] ?? [];
        const arns = Object.values(
          (template.toJSON().Mappings as Record<string, Record<string, Record<string, string>>>)[
            String(map)
          ] ?? {},
        ).map((byKey) => byKey[String(key)]);
        expect(arns.length).toBeGreaterThan(10);
        for (const arn of arns) {
          expect(arn).toMatch(/:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+$/);
        }
        expect(variables.PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED).toBe('false');
      } else {
        expect(layers).toEqual([]);
        expect(Object.keys(variables).filter((name) => name.startsWith('PARAMETERS_'))).toEqual([]);
      }
    }
  });

  it('logs every function to its own log group with a retention', () => {
    const logGroups = resourcesOfType(template, 'AWS::Logs::LogGroup');
    for (const route of routes) {
      const target = (functionOf(route).Properties.LoggingConfig as { LogGroup: { Ref: string } })
        .LogGroup.Ref;
      expect(logGroups.get(target)?.Properties.RetentionInDays).toBe(30);
    }
    // Functions (the console's deployment provider too), API access logs and API execution
    // logs: nothing keeps logs forever.
    expect(logGroups.size).toBe(
      routes.length +
        streamConsumers.length +
        1 +
        campaignFunctions.length +
        2 +
        1 +
        2 +
        2 +
        deployTime.size,
    );
    for (const logGroup of logGroups.values()) {
      expect(logGroup.Properties.RetentionInDays).toBe(30);
    }
  });
});

describe('API routes', () => {
  // The oracle is the contract (test/support/contract.ts), not functions/routes.ts.
  const lambdaMethods = (): string[] => methodsOf('AWS_PROXY');

  it("serves exactly the contract's endpoints, each method through Lambda", () => {
    const expected = [
      ...CONTRACT_ENDPOINTS.flatMap((endpoint) =>
        [...endpoint.methods, 'ANY'].map((method) => `${method} /newsletter/v1${endpoint.path}`),
      ),
      ...V2_CONTRACT_ENDPOINTS.flatMap((endpoint) =>
        [...Object.keys(endpoint.methods), 'ANY'].map(
          (method) => `${method} /newsletter/v2${endpoint.path}`,
        ),
      ),
    ].sort();
    expect(lambdaMethods()).toEqual(expected);
    // Nothing else: no mock method, no other integration type.
    const all = [...resourcesOfType(template, 'AWS::ApiGateway::Method').values()];
    expect(all).toHaveLength(expected.length);
  });

  it('sends every method of an endpoint, the wrong ones too, to one function of its own', () => {
    const apiMethods = [...resourcesOfType(template, 'AWS::ApiGateway::Method').values()];
    const functionOfMethod = (method: TemplateResource): string =>
      JSON.stringify(method.Properties.Integration).match(
        /"Fn::GetAtt":\["([^"]+)","Arn"\]/,
      )?.[1] ?? '';
    const byPath = new Map<string, Set<string>>();
    for (const method of apiMethods) {
      const path = (method.Properties.ResourceId as { Ref: string }).Ref;
      const targets = byPath.get(path) ?? new Set<string>();
      targets.add(functionOfMethod(method));
      byPath.set(path, targets);
    }
    const targets = [...byPath.values()];
    expect(targets.every((set) => set.size === 1)).toBe(true);
    expect(new Set(targets.map((set) => [...set][0])).size).toBe(
      CONTRACT_ENDPOINTS.length + V2_CONTRACT_ENDPOINTS.length,
    );
  });

  it('lets API Gateway invoke each function only for its own path', () => {
    const all = [...resourcesOfType(template, 'AWS::Lambda::Permission').values()];
    // The other invokers: SNS, for the feedback topic (test/infra/mail-feedback.test.ts), and
    // EventBridge, for the campaign sweeper's schedule (test/infra/campaign-engine.test.ts) and
    // the engagement eraser's (test/infra/engagement.test.ts) and the webhook retry sweep's.
    expect(
      all
        .filter((permission) => permission.Properties.Principal !== 'apigateway.amazonaws.com')
        .map((permission) => permission.Properties.Principal)
        .sort(),
    ).toEqual([
      'events.amazonaws.com',
      'events.amazonaws.com',
      'events.amazonaws.com',
      'sns.amazonaws.com',
    ]);
    const permissions = all.filter(
      (permission) => permission.Properties.Principal === 'apigateway.amazonaws.com',
    );
    expect(permissions.length).toBeGreaterThanOrEqual(CONTRACT_ENDPOINTS.length);
    for (const permission of permissions) {
      const sourceArn = JSON.stringify(permission.Properties.SourceArn);
      // A path parameter (`{id}`) is one `*` segment in the ARN, as CDK writes it.
      const path = [
        ...CONTRACT_ENDPOINTS.map((endpoint) => `/newsletter/v1${endpoint.path}`),
        ...V2_CONTRACT_ENDPOINTS.map((endpoint) => `/newsletter/v2${endpoint.path}`),
      ].find((each) => sourceArn.endsWith(`${each.replace(/\{[^}]+\}/g, '*')}"]]}`));
      expect(path, sourceArn).toBeDefined();
      // A method, or `*` for the ANY method that answers 405; never a wildcard path, only a
      // whole segment for a path parameter.
      expect(sourceArn).toMatch(
        /"\/(GET|POST|PUT|DELETE|\*)\/newsletter\/v[12](\/([a-z.]+|\*))+"\]\]\}$/,
      );
    }
  });
});

describe('permissions', () => {
  // Which grants each function needs is proven by the calls the deployed-stack scenario
  // records (test/deployed/deployed-stack.test.ts); these are the rules every policy keeps.
  it('lets a function send mail only from the sender identity', () => {
    // A user pool's `Policies` is its password policy, not IAM.
    const mail = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::IAM::Role')
      .flatMap((resource) =>
        (
          (resource.Properties?.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]
        ).flatMap((policy) => policy.PolicyDocument.Statement),
      )
      .filter((statement) =>
        list(statement.Action).some((action) => action.startsWith('ses:Send')),
      );
    expect(mail.length).toBeGreaterThan(0);
    for (const statement of mail) {
      expect(list(statement.Action)).toEqual(['ses:SendRawEmail']);
      expect(statement.Condition).toEqual({
        StringLike: { 'ses:FromAddress': '*@example.com' },
      });
    }
  });

  it('has no wildcard action and no unscoped resource in any policy', () => {
    // The deployment provider's grants are CDK's, acknowledged for cdk-nag (console-site.ts).
    const statements = Object.entries(resources).flatMap(([, resource]) => {
      const roles = (resource.Properties?.Roles ?? []) as { Ref?: string }[];
      if (
        resource.Type === 'AWS::IAM::Policy' &&
        roles.some((role) => deployTimeRoles.has(role.Ref))
      )
        return [];
      const inline = (
        resource.Type === 'AWS::IAM::Role' ? (resource.Properties?.Policies ?? []) : []
      ) as {
        PolicyDocument: { Statement: Statement[] };
      }[];
      const standalone = resource.Type === 'AWS::IAM::Policy' ? [resource.Properties] : [];
      return [...inline, ...(standalone as typeof inline)].flatMap(
        (policy) => policy.PolicyDocument.Statement,
      );
    });
    expect(statements.length).toBeGreaterThan(routes.length);
    for (const statement of statements) {
      for (const action of list(statement.Action)) expect(action).not.toContain('*');
      // Three actions have no resource-level permissions, the only unscoped ones: ListStreams,
      // which the Lambda service needs to read the table's stream for the stream consumers,
      // the read-only GetSendQuota of the campaign planner, and the read-only
      // GetSendStatistics of `GET /account`.
      if (
        ['dynamodb:ListStreams', 'ses:GetSendQuota', 'ses:GetSendStatistics'].includes(
          list(statement.Action).join(),
        )
      ) {
        expect(statement.Resource).toBe('*');
        continue;
      }
      for (const resource of list(statement.Resource)) {
        expect(resource).not.toBe('*');
        // A wildcard inside an ARN is allowed only where conditions narrow it (the aws/ssm
        // key, whose id is unknown at synth), or for the schedules of scheduled sends, whose
        // names carry their issue and time: only the service's names, in the stack's group.
        if (JSON.stringify(resource).includes('*')) {
          if (statement.Sid === 'Schedules') {
            expect(JSON.stringify(resource)).toMatch(
              /:schedule\/",\{"Ref":"[^"]+"\},"\/newsletter-\*"\]/,
            );
            continue;
          }
          expect(statement.Sid).toBe('ApiKeyDecrypt');
          expect(statement.Condition).toBeDefined();
        }
      }
    }
  });

  it('gives functions no AWS-managed policy', () => {
    for (const route of routes) {
      const handler = stack.functions.get(route.name);
      const role = handler ? resources[logicalId(handler.executionRole)] : undefined;
      expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe('table', () => {
  it('follows the table design: keys, TTL, the listing indexes and the address index, each with its INCLUDE projection', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: KEY.partition, KeyType: 'HASH' },
        { AttributeName: KEY.sort, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      GlobalSecondaryIndexes: Match.arrayWith(
        [INDEX.recent, INDEX.publicRecent].map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partition, KeyType: 'HASH' },
            { AttributeName: index.sort, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...LISTED_ATTRIBUTES] },
        })),
      ),
    });
    // [v2.paging-counts] A search by address: subscribers by address, with only what the
    // search filters and orders by.
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      AttributeDefinitions: Match.arrayWith([{ AttributeName: 'email', AttributeType: 'S' }]),
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: 'by_email',
          KeySchema: [
            { AttributeName: 'recent_pk', KeyType: 'HASH' },
            { AttributeName: 'email', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['id', 'status', 'lists'] },
        },
      ]),
    });
    const table = [...resourcesOfType(template, 'AWS::DynamoDB::Table').values()];
    expect(table).toHaveLength(1);
    expect(table[0]?.Properties.GlobalSecondaryIndexes).toHaveLength(3);
  });

  it('is on demand with point-in-time recovery', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('is retained and deletion-protected by default', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  it('can be made deletable through context', () => {
    // Arrange / Act: the strings a `-c retain=false` on the command line gives.
    const { template: deletable } = buildApp({ retain: 'false', deletionProtection: 'false' });
    // Assert
    deletable.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });
});

/** The parsed `application/json` template of a gateway response. */
function jsonTemplateOf(properties: Record<string, unknown>): unknown {
  const templates = (properties.ResponseTemplates ?? {}) as Record<string, string>;
  return JSON.parse(templates['application/json'] ?? 'null');
}

describe('API Gateway', () => {
  it('turns its own errors into the API error shape', () => {
    const responses = [...resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').values()];
    const byType = new Map(
      responses.map((response) => [String(response.Properties.ResponseType), response.Properties]),
    );
    const expected: Record<string, [string, number]> = {
      MISSING_AUTHENTICATION_TOKEN: ['not_found', 404],
      RESOURCE_NOT_FOUND: ['not_found', 404],
      THROTTLED: ['rate_limited', 429],
      REQUEST_TOO_LARGE: ['body_too_large', 400],
      INTEGRATION_FAILURE: ['unavailable', 503],
      DEFAULT_4XX: ['malformed_body', 400],
      DEFAULT_5XX: ['internal_error', 500],
    };
    for (const [type, [code, status]] of Object.entries(expected)) {
      const response = byType.get(type) ?? {};
      expect(response.StatusCode, type).toBe(String(status));
      expect(jsonTemplateOf(response)).toEqual({
        code,
        message: expect.any(String),
        data: { status },
      });
    }
    // Every customised response, not only those above, is well-formed and self-consistent.
    for (const response of responses) {
      const body = jsonTemplateOf(response.Properties) as {
        code: keyof typeof ERROR_STATUS;
        data: { status: number };
        message: string;
      };
      expect(body.data.status).toBe(ERROR_STATUS[body.code]);
      expect(response.Properties.StatusCode).toBe(String(body.data.status));
      expect(body.message.length).toBeGreaterThan(10);
    }
  });

  it('[http.cors] puts Access-Control-Allow-Origin on its own answers: *, one origin, or the echo', () => {
    const headersOf = (built: typeof template) =>
      [...resourcesOfType(built, 'AWS::ApiGateway::GatewayResponse').values()].map(
        (response) => response.Properties.ResponseParameters,
      );
    for (const parameters of headersOf(template)) {
      expect(parameters).toEqual({ 'gatewayresponse.header.Access-Control-Allow-Origin': "'*'" });
    }
    const one = buildApp({ corsOrigins: 'https://www.example.com' }).template;
    for (const parameters of headersOf(one)) {
      expect(parameters).toEqual({
        'gatewayresponse.header.Access-Control-Allow-Origin': "'https://www.example.com'",
        'gatewayresponse.header.Vary': "'Origin'",
      });
    }
    const several = buildApp({
      corsOrigins: 'https://a.example.com,https://b.example.com',
    }).template;
    for (const parameters of headersOf(several)) {
      expect(parameters).toEqual({
        'gatewayresponse.header.Access-Control-Allow-Origin': 'method.request.header.Origin',
        'gatewayresponse.header.Vary': "'Origin'",
      });
    }
  });

  it('names the stage after the path prefix and throttles it', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'api',
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        }),
      ]),
    });
  });

  it('writes access logs as JSON without query strings', () => {
    const stages = [...resourcesOfType(template, 'AWS::ApiGateway::Stage').values()];
    const setting = stages[0]?.Properties.AccessLogSetting as { Format: string };
    const fields = JSON.parse(setting.Format) as Record<string, string>;
    expect(fields).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      ip: '$context.identity.sourceIp',
      errorType: '$context.error.responseType',
    });
    expect(setting.Format).not.toMatch(/querystring|input\.params|requestOverride/i);
  });

  it('takes stage and throttling from context', () => {
    const { template: custom } = buildApp({
      stage: 'wp-json',
      throttleRate: '5',
      throttleBurst: '10',
    });
    custom.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'wp-json',
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ResourcePath: '/*', ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 }),
      ]),
    });
    expect(JSON.stringify(custom.findOutputs('ApiRoot'))).toContain('"/wp-json/newsletter/v1"');
  });
});

describe('outputs', () => {
  it('[http.front-door] prints {api_root} on the distribution, the one public address, and the table name', () => {
    const apiRoot = JSON.stringify(template.findOutputs('ApiRoot'));
    expect(apiRoot).not.toContain('.execute-api.');
    expect(apiRoot).toContain(
      `"Fn::GetAtt":["${logicalId(stack.console.distribution)}","DomainName"]`,
    );
    expect(apiRoot).toContain('"/api/newsletter/v1"');
    template.hasOutput('TableName', { Value: { Ref: logicalId(stack.table) } });
    expect(Object.keys(template.toJSON().Outputs ?? {}).sort()).toEqual([
      'ApiRoot',
      'CampaignQueue',
      'CampaignScheduleDeadLetters',
      'CampaignScheduleGroup',
      'CampaignScheduleRole',
      'CampaignScheduleTarget',
      'ConsoleUrl',
      'ConsoleUserPoolClientId',
      'ConsoleUserPoolId',
      'Dashboard',
      'DistributionWebAcl',
      'EventBusName',
      'FeedbackDeadLetters',
      'MailDeadLetters',
      'TableName',
    ]);
  });

  it('[http.front-door] puts a custom domain on the distribution, the stage kept in the path', () => {
    // Arrange / Act
    const certificate = 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123';
    const { template: withDomain } = buildApp({
      domainName: 'news.example.com',
      certificateArn: certificate,
    });
    // Assert: CloudFront serves it (with TLS 1.2 at least); API Gateway has no domain of its own.
    withDomain.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['news.example.com'],
        ViewerCertificate: Match.objectLike({
          AcmCertificateArn: certificate,
          MinimumProtocolVersion: 'TLSv1.2_2021',
        }),
      }),
    });
    expect(resourcesOfType(withDomain, 'AWS::ApiGateway::DomainName').size).toBe(0);
    withDomain.hasOutput('ApiRoot', { Value: 'https://news.example.com/api/newsletter/v1' });
    withDomain.hasOutput('CustomDomainTarget', {});
  });
});

describe('[subscribe.mail-failure] the stream consumers', () => {
  it('read the table stream filtered, batched, halved on error, retried a bounded number of times, into a dead-letter queue with an alarm', () => {
    // The stream's mappings; the campaign queues' are test/infra/campaign-engine.test.ts's.
    const mappings = [
      ...resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').values(),
    ].filter((mapping) => mapping.Properties.StartingPosition !== undefined);
    expect(mappings).toHaveLength(streamConsumers.length);
    const alarms = [...resourcesOfType(template, 'AWS::CloudWatch::Alarm').values()];
    for (const consumer of streamConsumers) {
      const entry = stack.consumers.get(consumer.name);
      if (!entry) throw new Error(`no function for ${consumer.name}`);
      const mapping = mappings.find(
        (candidate) =>
          JSON.stringify(candidate.Properties.FunctionName) ===
          JSON.stringify({ Ref: logicalId(entry.fn) }),
      );
      if (!mapping) throw new Error(`no event source mapping for ${consumer.name}`);
      expect(mapping.Properties).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.table), 'StreamArn'] },
        BatchSize: consumer.batchSize,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 8,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: {
          OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(entry.deadLetters), 'Arn'] } },
        },
      });
      const patterns = (
        mapping.Properties.FilterCriteria as { Filters: { Pattern: string }[] }
      ).Filters.map((filter) => JSON.parse(filter.Pattern) as Record<string, unknown>);
      // Each filter of the table as the consumer's table says: its kind and events.
      expect(patterns).toHaveLength(consumer.filters.length);
      for (const [index, filter] of consumer.filters.entries()) {
        expect(patterns[index]).toMatchObject({
          eventName: [...filter.eventNames],
          dynamodb: { Keys: { pk: { S: [{ prefix: filter.keyPrefix }] } } },
        });
      }
      const watched = alarms.filter((alarm) =>
        JSON.stringify(alarm.Properties).includes(logicalId(entry.deadLetters)),
      );
      expect(watched).toHaveLength(1);
    }
    // The counts need what a change changed: the image before it too.
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    expect(streamConsumers.map((consumer) => consumer.filters.map((f) => f.keyPrefix))).toEqual([
      // Issues, and recipient records with an open or a click, for their events.
      ['REQUEST#', 'SUBSCRIBER#', 'NEWSLETTER#', 'RECIPIENTS#', 'RECIPIENTS#'],
      ['OUTBOX#', 'OUTBOX#'],
    ]);
  });
});

describe('[webhooks.delivery] the webhooks on the stack', () => {
  const webhooks = stack.webhooks;
  it("takes every event of the service off the stack's bus onto a queue with dead letters", () => {
    const rule = resources[logicalId(webhooks.rule)]?.Properties ?? {};
    expect(rule.EventBusName).toEqual({ Ref: logicalId(stack.events.bus) });
    expect(rule.EventPattern).toEqual({ source: [EVENT_SOURCE] });
    expect(rule.Targets).toEqual([
      { Arn: { 'Fn::GetAtt': [logicalId(webhooks.queue), 'Arn'] }, Id: 'Target0' },
    ]);
    const queue = resources[logicalId(webhooks.queue)]?.Properties ?? {};
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(webhooks.deadLetters), 'Arn'] },
      maxReceiveCount: webhookDeliverer.maxReceives,
    });
    const mappings = [...resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').values()];
    expect(
      mappings.find(
        (mapping) =>
          (mapping.Properties.FunctionName as { Ref?: string } | undefined)?.Ref ===
          logicalId(webhooks.deliverer),
      )?.Properties,
    ).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [logicalId(webhooks.queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: webhookDeliverer.batchSize,
    });
  });

  it('runs the retry sweep every minute', () => {
    const sweep = resources[logicalId(webhooks.sweep)]?.Properties ?? {};
    expect(sweep.ScheduleExpression).toBe('rate(1 minute)');
    expect(sweep.Targets).toMatchObject([
      { Arn: { 'Fn::GetAtt': [logicalId(webhooks.retrier), 'Arn'] } },
    ]);
  });

  it('[webhooks.ssrf] never lets a function of the stack send webhooks over plain http', () => {
    const functions = [...resourcesOfType(template, 'AWS::Lambda::Function').values()];
    const allowing = functions.filter(
      (fn) =>
        (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables?.[EVENTS_ENV.webhooksLocalHttp] !== undefined,
    );
    expect(functions.length).toBeGreaterThan(20);
    expect(allowing).toEqual([]);
  });
});

describe('[ops.alarms] alarms and dashboard', () => {
  interface AlarmMetric {
    readonly Id: string;
    readonly Expression?: string;
    readonly MetricStat?: {
      readonly Metric: {
        readonly Namespace: string;
        readonly MetricName: string;
        readonly Dimensions?: { Name: string; Value: unknown }[];
      };
    };
  }
  const alarms = () =>
    [...resourcesOfType(template, 'AWS::CloudWatch::Alarm').values()].map((alarm) => ({
      metrics: (alarm.Properties.Metrics ?? []) as AlarmMetric[],
      properties: alarm.Properties,
    }));
  const stats = (alarm: { metrics: readonly AlarmMetric[] }) =>
    alarm.metrics.flatMap((metric) => (metric.MetricStat ? [metric.MetricStat.Metric] : []));
  const dimension = (metric: { Dimensions?: { Name: string; Value: unknown }[] }, name: string) =>
    metric.Dimensions?.find((entry) => entry.Name === name)?.Value;

  it('alarms on the share of 5xx answers of this API', () => {
    const rate = alarms().find((alarm) =>
      stats(alarm).some((metric) => metric.MetricName === '5XXError'),
    );
    if (!rate) throw new Error('no alarm on 5XXError');
    const names = stats(rate).map((metric) => `${metric.Namespace}/${metric.MetricName}`);
    expect(names.sort()).toEqual(['AWS/ApiGateway/5XXError', 'AWS/ApiGateway/Count']);
    for (const metric of stats(rate)) {
      expect(dimension(metric, 'ApiName')).toEqual(stack.api.restApi.restApiName);
    }
    const returned = rate.metrics.find((metric) => metric.Expression && !metric.MetricStat);
    expect(returned?.Expression).toMatch(/100 \* errors \/ requests/);
  });

  it('alarms on throttling of every function and of the table, ten metrics at most per alarm', () => {
    const throttled = alarms().filter((alarm) =>
      stats(alarm).some((metric) => /Throttle/.test(metric.MetricName)),
    );
    const functionNames = throttled.flatMap((alarm) =>
      stats(alarm)
        .filter((metric) => metric.Namespace === 'AWS/Lambda' && metric.MetricName === 'Throttles')
        .map((metric) => JSON.stringify(dimension(metric, 'FunctionName'))),
    );
    const expected = [
      ...routes.map((route) => stack.functions.get(route.name)),
      ...streamConsumers.map((consumer) => stack.consumers.get(consumer.name)?.fn),
      stack.feedbackFunction,
      ...campaignFunctions.map((entry) => stack.campaigns.functions.get(entry.name)),
      stack.engagement.fn,
      stack.engagement.eraser,
      stack.events.fn,
      stack.webhooks.deliverer,
      stack.webhooks.retrier,
    ].map((fn) => JSON.stringify({ Ref: logicalId(fn ?? stack) }));
    expect(functionNames.sort()).toEqual(expected.sort());
    const table = throttled.flatMap((alarm) =>
      stats(alarm).filter((metric) => metric.Namespace === 'AWS/DynamoDB'),
    );
    expect(table.map((metric) => metric.MetricName).sort()).toEqual([
      'ReadThrottleEvents',
      'WriteThrottleEvents',
    ]);
    for (const alarm of throttled) expect(stats(alarm).length).toBeLessThanOrEqual(10);
  });

  it("alarms on the service's MailFailures metric, as the functions publish it", () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Newsletter',
      MetricName: 'MailFailures',
      Dimensions: [{ Name: 'service', Value: 'newsletter' }],
      Statistic: 'Sum',
    });
  });

  it('has a dashboard, and notifies a given topic on alarm and recovery', () => {
    expect(resourcesOfType(template, 'AWS::CloudWatch::Dashboard').size).toBe(1);
    for (const alarm of alarms()) expect(alarm.properties.AlarmActions).toBeUndefined();
    const topic = 'arn:aws:sns:eu-west-1:123456789012:newsletter-alarms';
    const { template: notifying, stack: notifyingStack } = buildApp({ alarmTopicArn: topic });
    // Every alarm notifies, CampaignBehindRate included ([campaign.rate-kept]): no composite
    // with silent parts any more.
    const all = [
      ...resourcesOfType(notifying, 'AWS::CloudWatch::Alarm'),
      ...resourcesOfType(notifying, 'AWS::CloudWatch::CompositeAlarm'),
    ];
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const [id, alarm] of all) {
      expect(alarm.Properties.AlarmActions, id).toEqual([topic]);
      expect(alarm.Properties.OKActions, id).toEqual([topic]);
    }
    expect(resourcesOfType(notifying, 'AWS::CloudWatch::CompositeAlarm').size).toBe(0);
    expect(
      notifyingStack.getLogicalId(notifyingStack.alarms.behindRate.node.defaultChild as CfnElement),
    ).toContain('CampaignBehindRate');
  });
});

describe('synthesis', () => {
  it('raises no CDK warning or error', () => {
    const annotations = Annotations.fromStack(stack);
    expect(annotations.findError('*', Match.anyValue())).toEqual([]);
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
  });
});
