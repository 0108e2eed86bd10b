import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Logger } from '../../shared/runtime/logger.ts';

/** The request id a person can quote: API Gateway's, else the Lambda invocation's. */
export function requestIdOf(event: APIGatewayProxyEvent, context: Context): string {
  return event.requestContext?.requestId || context.awsRequestId;
}

/**
 * One structured line per request: id, route, method, status, duration. Deliberately nothing
 * from the query or body, which is where keys and tokens travel.
 */
export function requestLog(
  route: string,
  log: () => Logger,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  const started = new WeakMap<object, number>();
  const write = (
    request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>,
  ): void => {
    const start = started.get(request) ?? performance.now();
    log().info('request', {
      request_id: requestIdOf(request.event, request.context),
      route,
      method: request.event.httpMethod,
      status: request.response?.statusCode ?? 500,
      duration_ms: Math.round((performance.now() - start) * 10) / 10,
    });
  };
  return {
    before: (request) => {
      started.set(request, performance.now());
    },
    after: write,
    onError: write,
  };
}
