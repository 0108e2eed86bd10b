import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { describeError } from '../../shared/domain/errors.ts';
import { MissingDependency, misconfigured } from '../../shared/operations/dependencies.ts';
import type { FunctionRuntime } from './function-runtime.ts';
import { errorResponse, internalErrorResponse } from './responses.ts';

type Middleware = middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

/** The request id a person can quote: API Gateway's, else the Lambda invocation's. */
export function requestIdOf(event: APIGatewayProxyEvent, context: Context): string {
  return event.requestContext?.requestId || context.awsRequestId;
}

/**
 * What every API function does around its handler, in this order:
 * - Powertools' Logger takes the Lambda context: every line carries the function's request id
 *   and the cold-start flag, and also `request_id`, the id a 500 or 503 body shows a person, so
 *   that id finds every line of the request, the operation's own among them;
 * - the metrics the invocation counted are published (EMF), only when there are some;
 * - one `request` line per request: id, route, method, status, duration, and nothing from the
 *   query or body, which is where keys and tokens travel;
 * - whatever nothing else caught is logged with its cause and answered with the generic 500.
 */
export function observability(runtime: FunctionRuntime, route: string): Middleware[] {
  const started = new WeakMap<object, number>();
  const requestLine: Middleware['after'] = (request) => {
    const start = started.get(request) ?? performance.now();
    runtime.log.info('request', {
      route,
      method: request.event.httpMethod,
      status: request.response?.statusCode ?? 500,
      duration_ms: Math.round((performance.now() - start) * 10) / 10,
    });
  };
  const publishMetrics: Middleware['after'] = () => {
    if (runtime.metricsPublisher.hasStoredMetrics())
      runtime.metricsPublisher.publishStoredMetrics();
  };
  return [
    injectLambdaContext(runtime.logger, { resetKeys: true }) as Middleware,
    {
      before: (request) => {
        started.set(request, performance.now());
        runtime.logger.appendKeys({ request_id: requestIdOf(request.event, request.context) });
      },
    },
    { after: publishMetrics, onError: publishMetrics },
    { after: requestLine, onError: requestLine },
    {
      onError: (request) => {
        runtime.log.error('unhandled_error', { route, cause: describeError(request.error) });
        const requestId = requestIdOf(request.event, request.context);
        // A composition root that forgot a dependency is a bug to name, not an outage.
        request.response =
          request.error instanceof MissingDependency
            ? errorResponse(misconfigured(request.error), requestId)
            : internalErrorResponse(requestId);
      },
    },
  ];
}
