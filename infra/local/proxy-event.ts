import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';

/** Media types API Gateway is configured to pass as base64 (binaryMediaTypes in the stack). */
export const BINARY_MEDIA_TYPES: readonly string[] = ['multipart/form-data'];

/**
 * Turns a local HTTP request into the API Gateway REST (v1 proxy) event Lambda would receive,
 * so the local server runs the deployed handler code unchanged.
 */
export function toProxyEvent(
  request: IncomingMessage,
  body: Buffer,
  route: { stage: string; resource: string; path: string },
): APIGatewayProxyEvent {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = Object.create(null);
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i] ?? '';
    const value = request.rawHeaders[i + 1] ?? '';
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  headers['X-Forwarded-Proto'] = 'http';
  multiValueHeaders['X-Forwarded-Proto'] = ['http'];
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [key, value] of url.searchParams) {
    query[key] = value;
    multiQuery[key] = [...(multiQuery[key] ?? []), value];
  }
  const contentType =
    (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const binary = BINARY_MEDIA_TYPES.includes(contentType);
  const requestId = randomUUID();
  const method = request.method ?? 'GET';
  return {
    resource: route.resource,
    path: route.path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: url.searchParams.size ? query : null,
    multiValueQueryStringParameters: url.searchParams.size ? multiQuery : null,
    pathParameters: null,
    stageVariables: null,
    body: body.length ? body.toString(binary ? 'base64' : 'utf8') : null,
    isBase64Encoded: binary && body.length > 0,
    requestContext: {
      accountId: '000000000000',
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
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        user: null,
        userAgent: request.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: `/${route.stage}${route.path}`,
      stage: route.stage,
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: route.resource,
    },
  };
}
