/**
 * The REST API as the template defines it, served on loopback: the stage as the first path
 * segment, the resources and methods of the template (nothing else), Lambda proxy
 * integrations invoked only where a Lambda permission allows API Gateway to, mock integrations
 * with their static templates, the binary media types, the 10 MB payload limit, the gateway
 * responses the template customises, the web ACL associated with the stage (before anything
 * else, as AWS WAF) and the throttles, one bucket per method as API Gateway keeps them. A route
 * missing from the template, a method it does not define or a permission it forgets fails
 * here as it would on AWS. This is the execute-api address: the public one is the
 * distribution in front of it (cloudfront.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { readBody } from '../read-body.ts';
import type { ApiIntegration, ApiMethod, DeployedApi, HeaderSource } from './deployed-stack.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './intrinsics.ts';
import type { InvocationResult } from './lambda-host.ts';
import { LocalWebAcl, type WebAclVerdict } from './web-acl.ts';

/** API Gateway's payload limit. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/** Status and body of API Gateway's built-in responses, before the template customises them. */
const BUILT_IN: Record<string, { status: number; message: string }> = {
  MISSING_AUTHENTICATION_TOKEN: { status: 403, message: 'Missing Authentication Token' },
  RESOURCE_NOT_FOUND: { status: 404, message: 'Resource not found' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Media Type' },
  REQUEST_TOO_LARGE: { status: 413, message: 'Request Too Long' },
  THROTTLED: { status: 429, message: 'Too Many Requests' },
  ACCESS_DENIED: { status: 403, message: 'Forbidden' },
  INTEGRATION_FAILURE: { status: 504, message: 'Internal server error' },
  BAD_GATEWAY: { status: 502, message: 'Internal server error' },
  DEFAULT_4XX: { status: 400, message: 'Bad Request' },
  DEFAULT_5XX: { status: 500, message: 'Internal server error' },
};

/** Invokes a function of the stack by logical id. */
export type InvokeFunction = (logicalId: string, event: unknown) => Promise<InvocationResult>;

/** Options of the local API. */
export interface ApiGatewayOptions {
  readonly api: DeployedApi;
  readonly invoke: InvokeFunction;
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** Called once per answered request (access log). */
  readonly onRequest?: (entry: { method: string; path: string; status: number }) => void;
  /** The clock of the web ACL's rate-based rules (tests move it). */
  readonly now?: () => number;
}

/** The running local API. */
export interface ApiGateway {
  readonly port: number;
  /** `http://localhost:PORT/{stage}` */
  readonly stageUrl: string;
  readonly server: Server;
  stop(): Promise<void>;
}

/** An answer of the local origin. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer | string;
}

/** Starts the API on loopback. */
export async function startApiGateway(options: ApiGatewayOptions): Promise<ApiGateway> {
  const { api } = options;
  const byPath = new Map<string, Map<string, ApiMethod>>();
  for (const method of api.methods) {
    const methods = byPath.get(method.path) ?? new Map<string, ApiMethod>();
    methods.set(method.httpMethod, method);
    byPath.set(method.path, methods);
  }
  const resourcePaths = [...byPath.keys()];

  const gatewayResponse = (type: string, requestId: string, request?: IncomingMessage): Answer => {
    const builtIn = BUILT_IN[type] ?? BUILT_IN.DEFAULT_4XX!;
    const family = builtIn.status >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX';
    const custom = api.gatewayResponses.get(type) ?? api.gatewayResponses.get(family);
    const template = custom?.templates['application/json'];
    const body =
      template === undefined
        ? JSON.stringify({ message: builtIn.message })
        : template.replaceAll('$context.requestId', requestId);
    return {
      status: api.gatewayResponses.get(type)?.statusCode ?? custom?.statusCode ?? builtIn.status,
      headers: {
        'Content-Type': 'application/json',
        'x-amzn-RequestId': requestId,
        'x-amzn-ErrorType': type,
        ...mappedHeaders(custom?.headers ?? {}, request),
      },
      body,
    };
  };

  const mayInvoke = (functionLogicalId: string, httpMethod: string, path: string): boolean => {
    const arn = `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${api.restApiId}/${api.stage}/${httpMethod}${path}`;
    return api.invokePermissions.some(
      (permission) =>
        permission.functionLogicalId === functionLogicalId && arnMatches(permission.sourceArn, arn),
    );
  };

  // Throttling as API Gateway applies it: a token bucket per method, of `burst` tokens
  // refilled at `rate` per second (the method's own settings, else the stage's for every
  // method); a request that finds its method's bucket empty is answered 429 by the gateway.
  const buckets = new Map<string, { tokens: number; refilledAt: number }>();
  const throttled = (method: ApiMethod): boolean => {
    const limit = api.methodThrottles?.get(`${method.path} ${method.httpMethod}`) ?? api.throttle;
    if (!limit) return false;
    const key = `${method.path} ${method.httpMethod}`;
    const now = performance.now();
    const bucket = buckets.get(key) ?? { tokens: limit.burst, refilledAt: now };
    bucket.tokens = Math.min(
      limit.burst,
      bucket.tokens + ((now - bucket.refilledAt) / 1000) * limit.rate,
    );
    bucket.refilledAt = now;
    buckets.set(key, bucket);
    if (bucket.tokens < 1) return true;
    bucket.tokens -= 1;
    return false;
  };
  const webAcl = api.webAcl ? new LocalWebAcl(api.webAcl, options.now) : undefined;

  const answer = async (request: IncomingMessage, requestId: string): Promise<Answer> => {
    const body = await readBody(request, MAX_PAYLOAD_BYTES);
    // AWS WAF decides first: a request it blocks reaches neither the throttle nor a function.
    const verdict = webAcl?.evaluate(webAclRequestOf(request));
    if (verdict?.action === 'block') return blockedAnswer(verdict, requestId);
    const url = new URL(request.url ?? '/', 'http://localhost');
    const prefix = `/${api.stage}`;
    const inStage = url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
    if (body === undefined) return gatewayResponse('REQUEST_TOO_LARGE', requestId, request);
    if (!inStage) return gatewayResponse('MISSING_AUTHENTICATION_TOKEN', requestId, request);
    const path = url.pathname.slice(prefix.length) || '/';
    // REST APIs route `/subscribe/` to the `/subscribe` resource.
    const resourcePath = path.length > 1 ? path.replace(/\/+$/, '') : path;
    const httpMethod = request.method ?? 'GET';
    const resource = matchResource(resourcePaths, resourcePath);
    const methods = resource ? byPath.get(resource.path) : undefined;
    const method = methods?.get(httpMethod) ?? methods?.get('ANY');
    if (!resource || !method) {
      return gatewayResponse('MISSING_AUTHENTICATION_TOKEN', requestId, request);
    }
    if (throttled(method)) return gatewayResponse('THROTTLED', requestId, request);
    return method.integration.kind === 'mock'
      ? mockAnswer(method.integration, request, requestId, gatewayResponse)
      : lambdaAnswer(
          method,
          request,
          body,
          url,
          path,
          resourcePath,
          resource.parameters,
          requestId,
        );
  };

  const lambdaAnswer = async (
    method: ApiMethod,
    request: IncomingMessage,
    body: Buffer,
    url: URL,
    path: string,
    resourcePath: string,
    pathParameters: Readonly<Record<string, string>> | null,
    requestId: string,
  ): Promise<Answer> => {
    const integration = method.integration as Extract<ApiIntegration, { kind: 'lambda' }>;
    const httpMethod = request.method ?? 'GET';
    // The permission is checked against the path as requested (`/newsletters/7/view`), which
    // the `*` a template writes for a path parameter matches.
    if (!mayInvoke(integration.functionLogicalId, httpMethod, resourcePath)) {
      // "Execution failed due to configuration error: Invalid permissions on Lambda function"
      return { ...gatewayResponse('DEFAULT_5XX', requestId, request), status: 500 };
    }
    const event = proxyEvent(request, body, {
      stage: api.stage,
      resource: method.path,
      path,
      url,
      requestId,
      binaryMediaTypes: api.binaryMediaTypes,
      pathParameters,
    });
    const outcome = await options.invoke(integration.functionLogicalId, event);
    if (!outcome.ok) return { ...gatewayResponse('DEFAULT_5XX', requestId), status: 502 };
    const result = outcome.result as APIGatewayProxyResult | null;
    if (!isProxyResult(result))
      return { ...gatewayResponse('DEFAULT_5XX', requestId), status: 502 };
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
    for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
      headers[name] = values.map(String);
    }
    headers['x-amzn-RequestId'] = requestId;
    return {
      status: result.statusCode,
      headers,
      body: result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''),
    };
  };

  const sockets = new Set<Socket>();
  const server = createServer(async (request, response: ServerResponse) => {
    const requestId = randomUUID();
    try {
      const result = await answer(request, requestId);
      response.writeHead(result.status, result.headers);
      response.end(result.body);
      options.onRequest?.({
        method: request.method ?? '',
        path: request.url ?? '',
        status: result.status,
      });
    } catch (error) {
      process.stderr.write(`local API: ${error instanceof Error ? error.stack : String(error)}\n`);
      if (!response.headersSent) {
        const failed = gatewayResponse('DEFAULT_5XX', requestId);
        response.writeHead(failed.status, failed.headers).end(failed.body);
      } else {
        response.destroy();
      }
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // API Gateway keeps an idle client connection far longer than Node's 5 s default. With 5 s,
  // a client's pooled connection could be reused just as the server closed it (ECONNRESET on
  // a loaded machine, where timers fire late): a failure of the local set-up, not of the API.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    stageUrl: `http://localhost:${port}/${api.stage}`,
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** What a web ACL inspects of a request that reached the local server. */
export function webAclRequestOf(request: IncomingMessage): {
  ip: string;
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
} {
  // No prototype: a header may be called `__proto__` or `constructor`.
  const headers: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    ip: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
    method: request.method ?? 'GET',
    path: (request.url ?? '/').split('?')[0] ?? '/',
    headers,
  };
}

/** The answer of a web ACL's Block action, as AWS WAF sends its custom response. */
export function blockedAnswer(
  verdict: Extract<WebAclVerdict, { action: 'block' }>,
  requestId: string,
): Answer {
  return {
    status: verdict.status,
    headers: { ...verdict.headers, 'x-amzn-RequestId': requestId },
    body: verdict.body,
  };
}

/** A mock integration with static templates: choose the template, then the response. */
function mockAnswer(
  integration: Extract<ApiIntegration, { kind: 'mock' }>,
  request: IncomingMessage,
  requestId: string,
  gatewayResponse: (type: string, requestId: string, request?: IncomingMessage) => Answer,
): Answer {
  const contentType =
    (request.headers['content-type'] ?? 'application/json').split(';')[0]?.trim().toLowerCase() ??
    '';
  const template = integration.requestTemplates[contentType];
  if (template === undefined && integration.passthrough === 'NEVER') {
    return gatewayResponse('UNSUPPORTED_MEDIA_TYPE', requestId, request);
  }
  let statusCode = '200';
  try {
    statusCode = String(
      (JSON.parse(template ?? '{}') as { statusCode?: number }).statusCode ?? 200,
    );
  } catch {
    throw new Error('the local API runs only static mock templates');
  }
  const response =
    integration.responses.find((each) => each.statusCode === statusCode) ??
    integration.responses.find((each) => each.selectionPattern === undefined);
  if (!response) return gatewayResponse('DEFAULT_5XX', requestId);
  return {
    status: Number(response.statusCode),
    headers: { 'Content-Type': 'application/json', ...response.headers },
    body: response.templates['application/json'] ?? '',
  };
}

/** Header values of a mapping for one request; a request header that is absent maps to none. */
function mappedHeaders(
  headers: Readonly<Record<string, HeaderSource>>,
  request: IncomingMessage | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, source] of Object.entries(headers)) {
    if (typeof source === 'string') out[name] = source;
    else {
      const value = request?.headers[source.requestHeader.toLowerCase()];
      if (typeof value === 'string') out[name] = value;
    }
  }
  return out;
}

/**
 * The resource a request path reaches, as API Gateway picks it: a `{name}` segment of a resource
 * path stands for any one non-empty segment, and where resources overlap, a literal segment wins
 * over a parameter at the first place they differ (`/newsletters/latest` before
 * `/newsletters/{id}`). The parameters' values are the segments as sent, not percent-decoded,
 * as a REST API passes them. Greedy `{name+}` resources are not used by the stack, so not served.
 */
export function matchResource(
  resourcePaths: readonly string[],
  requestPath: string,
): { readonly path: string; readonly parameters: Record<string, string> | null } | undefined {
  const segments = requestPath.split('/');
  let best: { path: string; parameters: Record<string, string> | null; rank: string } | undefined;
  for (const path of resourcePaths) {
    const template = path.split('/');
    if (template.length !== segments.length) continue;
    const parameters: Record<string, string> = {};
    let rank = '';
    let matches = true;
    for (const [index, part] of template.entries()) {
      const segment = segments[index] ?? '';
      const name = /^\{([^{}+]+)\}$/.exec(part)?.[1];
      if (name !== undefined && segment !== '') {
        parameters[name] = segment;
        rank += '1';
      } else if (part === segment) {
        rank += '0';
      } else {
        matches = false;
        break;
      }
    }
    // Lower rank: literal segments earlier.
    if (matches && (!best || rank < best.rank)) {
      best = { path, parameters: Object.keys(parameters).length ? parameters : null, rank };
    }
  }
  return best && { path: best.path, parameters: best.parameters };
}

/** Whether an ARN pattern of a Lambda permission (with `*` wildcards) covers `arn`. */
function arnMatches(pattern: string, arn: string): boolean {
  const expression = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${expression}$`).test(arn);
}

function isProxyResult(value: unknown): value is APIGatewayProxyResult {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as Record<string, unknown>;
  return (
    Number.isInteger(result.statusCode) &&
    (result.body === undefined || typeof result.body === 'string') &&
    (result.headers === undefined || typeof result.headers === 'object')
  );
}

/** Whether a content type is one of the API's binary media types (wildcards allowed). */
function isBinary(contentType: string, binaryMediaTypes: readonly string[]): boolean {
  const [type, subtype] = contentType.split('/');
  return binaryMediaTypes.some((pattern) => {
    const [wantType, wantSubtype] = pattern.toLowerCase().split('/');
    return (
      (wantType === '*' || wantType === type) && (wantSubtype === '*' || wantSubtype === subtype)
    );
  });
}

/** The REST (v1) proxy event API Gateway hands a Lambda integration (the warm bench's too). */
export function proxyEvent(
  request: IncomingMessage,
  body: Buffer,
  route: {
    stage: string;
    resource: string;
    path: string;
    url: URL;
    requestId: string;
    binaryMediaTypes: readonly string[];
    pathParameters: Readonly<Record<string, string>> | null;
  },
): APIGatewayProxyEvent {
  const sourceIp = (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const headers: Record<string, string> = Object.create(null);
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  const add = (name: string, value: string): void => {
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  };
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    add(request.rawHeaders[i] ?? '', request.rawHeaders[i + 1] ?? '');
  }
  // API Gateway appends the caller's address to X-Forwarded-For and sets the scheme and port
  // itself, whatever the caller sent as those (in whatever case).
  const forwardedFor: string[] = [];
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'x-forwarded-for') forwardedFor.push(headers[name] ?? '');
    if (['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-port'].includes(lower)) {
      delete headers[name];
      delete multiValueHeaders[name];
    }
  }
  add('X-Forwarded-For', [...forwardedFor, sourceIp].join(', '));
  add('X-Forwarded-Proto', 'http');
  add('X-Forwarded-Port', String(request.socket.localPort ?? ''));
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [key, value] of route.url.searchParams) {
    query[key] = value;
    multiQuery[key] = [...(multiQuery[key] ?? []), value];
  }
  const contentType =
    (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const binary = isBinary(contentType, route.binaryMediaTypes);
  const method = request.method ?? 'GET';
  return {
    resource: route.resource,
    path: route.path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: route.url.searchParams.size ? query : null,
    multiValueQueryStringParameters: route.url.searchParams.size ? multiQuery : null,
    pathParameters: route.pathParameters ? { ...route.pathParameters } : null,
    stageVariables: null,
    body: body.length ? body.toString(binary ? 'base64' : 'utf8') : null,
    isBase64Encoded: binary && body.length > 0,
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: 'local',
      authorizer: undefined,
      protocol: `HTTP/${request.httpVersion}`,
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent: request.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: `/${route.stage}${route.path}`,
      stage: route.stage,
      requestId: route.requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: route.resource,
    },
  };
}
