import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { verifyApiKey } from '../../shared/auth/verify-api-key.ts';
import { isNewsletterError, type NewsletterError } from '../../shared/errors.ts';
import { describeError } from '../../shared/log/logger.ts';
import { Newsletter } from '../../shared/newsletter.ts';
import type { CallContext } from '../../shared/process/dependencies.ts';
import { type Route, routes } from '../routes.ts';
import { apiRootOf } from './api-root.ts';
import { methodNotAllowed } from './method-guard.ts';
import { parseRequest, type RequestParameters } from './parse-request.ts';
import { requestIdOf, requestLog } from './request-log.ts';
import { errorResponse, internalErrorResponse, jsonResponse } from './responses.ts';

/** A Lambda handler for an API Gateway REST (v1 proxy) event. */
export type ProxyHandler = middy.MiddyfiedHandler<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  Context
>;

/** What an endpoint does once its request is parsed and its caller known. */
export type Operation = (
  params: RequestParameters,
  context: CallContext,
) => Promise<unknown | NewsletterError>;

/** Looks a route up by name; a typo in a handler file fails at cold start, not per request. */
export function routeNamed(name: string): Route {
  const route = routes.find((candidate) => candidate.name === name);
  if (!route) throw new Error(`No route named ${name} in functions/routes.ts`);
  return route;
}

/**
 * Catches what nothing else did: logged with its cause, answered with the generic 500. Bad
 * input never gets here; it is an error value long before.
 */
export function errorBoundary(
  route: string,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  return {
    onError: (request) => {
      const requestId = requestIdOf(request.event, request.context);
      Newsletter.dependencies().log.error('unhandled_error', {
        route,
        request_id: requestId,
        cause: describeError(request.error),
      });
      request.response = internalErrorResponse(requestId);
    },
  };
}

/**
 * Builds the handler of a JSON endpoint: parse the parameters, settle the key, run the
 * operation, shape the response. Everything an endpoint decides lives in the function class.
 */
export function apiHandler(name: string, operation: Operation): ProxyHandler {
  const route = routeNamed(name);
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(requestLog(route.name, () => Newsletter.dependencies().log))
    .use(errorBoundary(route.name))
    .handler(async (event, context) => {
      const wrongMethod = methodNotAllowed(route, event.httpMethod);
      if (wrongMethod) return wrongMethod;
      const requestId = requestIdOf(event, context);
      const params = await parseRequest(event);
      if (isNewsletterError(params)) return errorResponse(params, requestId);
      let trusted = false;
      if (route.key !== 'none') {
        const parameters = Newsletter.parameters();
        const check = await verifyApiKey(
          params.api_key,
          route.key,
          () => parameters.apiKey(),
          Newsletter.dependencies().log,
        );
        if (isNewsletterError(check)) return errorResponse(check, requestId);
        trusted = check.trusted;
      }
      const apiRoot = apiRootOf(event, route.path);
      const clientIp = event.requestContext?.identity?.sourceIp;
      const result = await operation(params, {
        trusted,
        ...(apiRoot ? { apiRoot } : {}),
        ...(clientIp ? { clientIp } : {}),
      });
      return isNewsletterError(result) ? errorResponse(result, requestId) : jsonResponse(result);
    });
}
