import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isNewsletterError, type NewsletterError } from '../../shared/domain/errors.ts';
import { Newsletter } from '../../shared/newsletter.ts';
import type { CallContext } from '../../shared/operations/dependencies.ts';
import { describeError } from '../../shared/runtime/logger.ts';
import { type Route, routes } from '../routes.ts';
import { apiRootOf } from './api-root.ts';
import { allowedOrigins, corsMiddleware, preflightResponse } from './cors.ts';
import { formAnswer, isBrowserFormPost } from './form-answer.ts';
import { methodNotAllowed } from './method-guard.ts';
import { header, parseRequest, type RequestParameters } from './parse-request.ts';
import { requestIdOf, requestLog } from './request-log.ts';
import { errorResponse, internalErrorResponse, jsonResponse } from './responses.ts';
import { verifyApiKey } from './verify-api-key.ts';

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
 * Public routes answer CORS preflights and carry CORS headers on every answer; the subscribe
 * route answers a browser's plain form post with a page (form-answer.ts).
 */
export function apiHandler(name: string, operation: Operation): ProxyHandler {
  const route = routeNamed(name);
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>();
  // First in, so its `after` and `onError` see the final answer, the generic 500 included.
  if (route.cors) handler.use(corsMiddleware(allowedOrigins()));
  return handler
    .use(requestLog(route.name, () => Newsletter.dependencies().log))
    .use(errorBoundary(route.name))
    .handler(async (event, context) => {
      if (route.cors && event.httpMethod === 'OPTIONS') return preflightResponse(route);
      const wrongMethod = methodNotAllowed(route, event.httpMethod);
      if (wrongMethod) return wrongMethod;
      const requestId = requestIdOf(event, context);
      const answer = await answerOf(route, operation, event);
      if (route.formPage && isBrowserFormPost(event)) {
        const settings = await Newsletter.parameters()
          .settings()
          .catch(() => undefined);
        return formAnswer(formOutcomeOf(answer), settings, {
          requestId,
          referer: header(event, 'referer'),
        });
      }
      return isNewsletterError(answer) ? errorResponse(answer, requestId) : jsonResponse(answer);
    });
}

/** Parses the request, settles the key and runs the operation: its result or why not. */
async function answerOf(
  route: Route,
  operation: Operation,
  event: APIGatewayProxyEvent,
): Promise<unknown | NewsletterError> {
  const params = await parseRequest(event);
  if (isNewsletterError(params)) return params;
  let trusted = false;
  if (route.key !== 'none') {
    const parameters = Newsletter.parameters();
    const check = await verifyApiKey(
      params.api_key,
      route.key,
      () => parameters.apiKey(),
      Newsletter.dependencies().log,
    );
    if (isNewsletterError(check)) return check;
    trusted = check.trusted;
  }
  const apiRoot = apiRootOf(event, route.path);
  const clientIp = event.requestContext?.identity?.sourceIp;
  return operation(params, {
    trusted,
    ...(apiRoot ? { apiRoot } : {}),
    ...(clientIp ? { clientIp } : {}),
  });
}

/** A subscribe answer as a form outcome: a keyed call's subscriber counts by its status. */
function formOutcomeOf(
  answer: unknown | NewsletterError,
): { status: 'pending' | 'subscribed' } | NewsletterError {
  if (isNewsletterError(answer)) return answer;
  const status = (answer as { status?: string }).status;
  return { status: status === 'subscribed' || status === 'C' ? 'subscribed' : 'pending' };
}
