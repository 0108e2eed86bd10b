/**
 * Proposal (functions/openapi.ts): the API description needs no key, no table and no AWS
 * client, yet built on `apiHandler` it bundles the function class with the DynamoDB and SSM
 * clients. A handler of its own needs only the document, the API root and the log line.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import document from '../../docs/openapi.json' with { type: 'json' };
import { log } from '../../shared/runtime/logger.ts';

const ROUTE_PATH = '/openapi.json';

function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

/** `{api_root}` as functions/http/api-root.ts derives it. */
function apiRoot(event: APIGatewayProxyEvent): string | undefined {
  const host = header(event, 'host');
  if (!host) return undefined;
  const scheme = header(event, 'x-forwarded-proto')?.split(',')[0]?.trim() || 'https';
  const fullPath = (event.requestContext?.path ?? event.path ?? '').replace(/\/+$/, '');
  const root = fullPath.endsWith(ROUTE_PATH) ? fullPath.slice(0, -ROUTE_PATH.length) : fullPath;
  return `${scheme}://${host}${root}`;
}

export const handler = async (
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<APIGatewayProxyResult> => {
  const started = performance.now();
  const root = apiRoot(event);
  const response = {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
    body: JSON.stringify({ ...document, servers: root ? [{ url: root }] : document.servers }),
  };
  log.info('request', {
    request_id: event.requestContext?.requestId || context.awsRequestId,
    route: 'openapi',
    method: event.httpMethod,
    status: response.statusCode,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
  });
  return response;
};
