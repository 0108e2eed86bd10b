import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  type MethodDeploymentOptions,
  MethodLoggingLevel,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Route } from '../../../functions/routes.ts';
import { ERROR_STATUS } from '../../../shared/domain/errors.ts';
import { errorBody, GATEWAY_ERRORS } from '../gateway-errors.ts';

/** Path of `{api_root}` below the stage: `{base_url}/{stage}/newsletter/v1`. */
export const API_BASE_PATH = '/newsletter/v1';

/** Path of API v2 below the stage, beside v1: `{base_url}/{stage}/newsletter/v2`. */
export const API_V2_BASE_PATH = '/newsletter/v2';

/** Options an operator sets through context. */
export interface NewsletterApiProps {
  /** Stage name, which is also the first path segment (`api`, `wp-json`). */
  readonly stage: string;
  /** Each method's throttle unless `methodThrottles` gives it one of its own. */
  readonly throttleRate: number;
  readonly throttleBurst: number;
  /**
   * Throttles of single methods, by `<resource path>/<METHOD>` below the stage
   * (`/newsletter/v1/subscribe/POST`): each method has a bucket of its own on API Gateway.
   */
  readonly methodThrottles?: Readonly<
    Record<string, { readonly rate: number; readonly burst: number }>
  >;
  readonly logRetention: RetentionDays;
  /** Whether to set the account-wide role API Gateway writes logs with. */
  readonly cloudWatchRole: boolean;
  /** Origins allowed to read the public routes' answers; gateway responses carry them too. */
  readonly corsOrigins: '*' | readonly string[];
}

/**
 * `Access-Control-Allow-Origin` on API Gateway's own answers (unknown path, throttling, body
 * too large, ...), so a page can read why its call failed. These answers are the same for every
 * route and carry only the error shape. A static value for `*` or a single origin; for several
 * origins API Gateway cannot check the list, so the header echoes the request's Origin.
 */
function gatewayCorsHeaders(origins: '*' | readonly string[]): Record<string, string> {
  if (origins === '*') return { 'Access-Control-Allow-Origin': "'*'" };
  const [only] = origins;
  if (origins.length === 1 && only) {
    return { 'Access-Control-Allow-Origin': `'${only}'`, Vary: "'Origin'" };
  }
  return { 'Access-Control-Allow-Origin': 'method.request.header.Origin', Vary: "'Origin'" };
}

// One JSON object per request. No query string and no headers beyond the user agent: the
// API key may travel in the query string of GET /newsletters.
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    time: AccessLogField.contextRequestTime(),
    ip: AccessLogField.contextIdentitySourceIp(),
    userAgent: AccessLogField.contextIdentityUserAgent(),
    method: AccessLogField.contextHttpMethod(),
    path: AccessLogField.contextPath(),
    resource: AccessLogField.contextResourcePath(),
    status: AccessLogField.contextStatus(),
    errorType: AccessLogField.contextErrorResponseType(),
    responseLength: AccessLogField.contextResponseLength(),
    latencyMs: AccessLogField.contextResponseLatency(),
    integrationLatencyMs: AccessLogField.contextIntegrationLatency(),
  }),
);

/**
 * The REST API: `/newsletter/v1/<route path>` per route on a stage named after `{prefix}`,
 * throttling per method, JSON access logs, and API Gateway's own errors in the API's error
 * shape. It answers only through the stack's CloudFront distribution (the stage's web ACL
 * refuses the rest: [http.front-door]), which is where a custom domain goes too.
 *
 * A trailing slash needs no resource of its own: REST APIs route `/subscribe/` to the
 * `/subscribe` resource (the event's `path` keeps the slash, `resource` does not).
 */
export class NewsletterApi extends Construct {
  readonly restApi: RestApi;
  readonly #base: IResource;
  readonly #v2Base: IResource;

  constructor(scope: Construct, id: string, props: NewsletterApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.restApi = new RestApi(this, 'Api', {
      restApiName: `${Stack.of(this).stackName}-api`,
      description: 'Newsletter subscription API, interface version 1',
      // Regional: a custom domain then uses a certificate from the stack's own region.
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Access logs need the account-level role; it outlives the stack because other APIs in
      // the account may rely on it.
      cloudWatchRole: props.cloudWatchRole,
      ...(props.cloudWatchRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: props.stage,
        throttlingRateLimit: props.throttleRate,
        throttlingBurstLimit: props.throttleBurst,
        methodOptions: Object.fromEntries(
          Object.entries(props.methodThrottles ?? {}).map(([method, throttle]) => [
            method,
            {
              throttlingRateLimit: throttle.rate,
              throttlingBurstLimit: throttle.burst,
            } satisfies MethodDeploymentOptions,
          ]),
        ),
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
        // Execution logs for errors only; data tracing would log bodies, API keys included.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
    });
    // API Gateway creates the execution log group on first use, without retention; creating it
    // first gives it one and removes it with the stack.
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.restApi.restApiId}/${props.stage}`,
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.restApi.deploymentStage.node.addDependency(executionLogs);
    // RestApi prints its stage URL as an output; the stack prints `{api_root}` instead.
    this.restApi.node.tryRemoveChild('Endpoint');

    for (const error of GATEWAY_ERRORS) {
      this.restApi.addGatewayResponse(error.type.responseType, {
        type: error.type,
        statusCode: String(ERROR_STATUS[error.code]),
        templates: { 'application/json': errorBody(error.code, error.message) },
        responseHeaders: gatewayCorsHeaders(props.corsOrigins),
      });
    }
    this.#base = this.restApi.root.resourceForPath(API_BASE_PATH);
    this.#v2Base = this.restApi.root.resourceForPath(API_V2_BASE_PATH);

    if (props.cloudWatchRole) {
      Validations.of(this.restApi).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The account-level role API Gateway writes every API log with; this AWS-managed ' +
          'policy is the one API Gateway documents for it and allows CloudWatch Logs only. ' +
          'It cannot be scoped to this API, because the role is shared by all APIs of the ' +
          'account and region.',
      });
    }
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Parameters arrive as JSON, urlencoded or multipart forms (interface decision 1); the ' +
          'functions validate them and answer 400 in the API error shape. An API Gateway ' +
          'request validator cannot read form bodies and answers in its own format.',
      },
      {
        id: 'AwsSolutions-APIG4',
        reason:
          'Public by contract: subscribe, newsletters and the confirm/unsubscribe pages take ' +
          'no credentials, and the other endpoints authenticate with the api_key request ' +
          'parameter (form field, JSON body or query), checked in constant time by the ' +
          'function. An API Gateway authorizer cannot read a body parameter. API v2 takes named ' +
          'client keys (query string or HTTP Basic, either one) checked by the function against ' +
          'a hash, with a cache: an authorizer with caching refuses a request that lacks one of ' +
          'its identity sources, so it could not take both spellings.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'No user pool: the API has no end-user accounts. Keyed endpoints authenticate with the ' +
          'api_key request parameter, as the interface prescribes.',
      },
    );
  }

  /**
   * Serves `route` from `handler`: a Lambda proxy integration for each of its methods, and an
   * ANY method on the same function for every other method, which the function answers with
   * 405 and an `Allow` header (functions/http/method-guard.ts). A mock integration could not:
   * it refuses bodies whose content type has no mapping template before its 405 is reached.
   */
  addRoute(route: Route, handler: IFunction): void {
    const base = route.version === 'v2' ? this.#v2Base : this.#base;
    const resource = base.resourceForPath(route.path.slice(1));
    // Scoped per method, without the extra permissions for console test invocations.
    const integration = new LambdaIntegration(handler, { allowTestInvoke: false });
    for (const method of [...route.methods, 'ANY']) {
      resource.addMethod(method, integration, { authorizationType: AuthorizationType.NONE });
    }
  }
}
