import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isNewsletterError, type NewsletterError } from '../../shared/domain/errors.ts';
import type { Settings } from '../../shared/domain/settings-schema.ts';
import { type CallContext, required } from '../../shared/operations/dependencies.ts';
import type { RouteEntry } from '../route-table/route-entry.ts';
import { apiRootOf, apiRootPathOf } from './api-root.ts';
import { frontDoor } from './client-address.ts';
import { allowedOrigins, corsMiddleware, preflightResponse } from './cors.ts';
import type { BrowserForms } from './form-answer.ts';
import type { FunctionRuntime } from './function-runtime.ts';
import { header } from './headers.ts';
import { methodNotAllowed } from './method-guard.ts';
import { observability, requestIdOf } from './observability.ts';
import { parseRequest, type RequestParameters } from './parse-request.ts';
import { errorResponse, jsonResponse } from './responses.ts';
import { type KeyLoader, verifyApiKey } from './verify-api-key.ts';

/** A Lambda handler for an API Gateway REST (v1) proxy event. */
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

/** How a successful answer becomes HTTP; JSON unless the route says otherwise. */
export type Responder = (answer: unknown) => APIGatewayProxyResult;

/** What a JSON endpoint reads besides its operation's own dependencies. */
export interface EndpointAccess {
  /** The configured API key; needed by every route that takes a key. */
  readonly apiKey?: KeyLoader;
  /** The settings; needed by a route that answers form posts with pages. */
  readonly settings?: () => Promise<Settings>;
}

/**
 * Builds the handler of a JSON endpoint: parse the parameters, settle the key, run the
 * operation, shape the response. The rules live in the operation (shared/operations); this is
 * only the HTTP adapter. Public routes answer CORS preflights and carry CORS headers on every
 * answer; the subscribe route answers a browser's plain form post with a page, through `forms`
 * (BROWSER_FORMS of form-answer.ts), which a route with `formPage` must pass and no other
 * function bundles. `respond` shapes a success (a route serving a page passes its own); errors
 * always get the JSON error body.
 */
export function apiHandler(
  route: RouteEntry,
  runtime: FunctionRuntime,
  access: EndpointAccess,
  operation: Operation,
  respond: Responder = jsonResponse,
  forms?: BrowserForms,
): ProxyHandler {
  if (route.formPage && !forms) {
    throw new Error(`${route.name} answers browser forms: its handler must pass BROWSER_FORMS`);
  }
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>();
  // First in, so its `after` and `onError` see the final answer, the generic 500 included.
  if (route.cors) handler.use(corsMiddleware(allowedOrigins()));
  return handler.use(observability(runtime, route.name)).handler(async (event, context) => {
    if (route.cors && event.httpMethod === 'OPTIONS') return preflightResponse(route);
    const wrongMethod = methodNotAllowed(route, event.httpMethod);
    if (wrongMethod) return wrongMethod;
    const requestId = requestIdOf(event, context);
    const answer = await answerOf(route, access, runtime, operation, event);
    if (route.formPage && forms?.isBrowserFormPost(event)) {
      const settings = await required(access.settings, 'settings')().catch(() => undefined);
      return forms.formAnswer(formOutcomeOf(answer), settings, {
        requestId,
        referer: header(event, 'referer'),
      });
    }
    return isNewsletterError(answer) ? errorResponse(answer, requestId) : respond(answer);
  });
}

/** Read once per container, like the rest of the function's configuration. */
const door = frontDoor();

/** Parses the request, settles the key and runs the operation: its result or why not. */
async function answerOf(
  route: RouteEntry,
  access: EndpointAccess,
  runtime: FunctionRuntime,
  operation: Operation,
  event: APIGatewayProxyEvent,
): Promise<unknown | NewsletterError> {
  const params = await parseRequest(event);
  if (isNewsletterError(params)) return params;
  // Path parameters (`/newsletters/{id}/view`) are parameters too, and win over the same name
  // in the query or body: the path is what API Gateway routed by.
  for (const [name, value] of Object.entries(event.pathParameters ?? {})) {
    if (value !== undefined) params[name] = value;
  }
  let trusted = false;
  if (route.key !== 'none') {
    const check = await verifyApiKey(
      params.api_key,
      route.key,
      required(access.apiKey, 'apiKey'),
      runtime.log,
    );
    if (isNewsletterError(check)) return check;
    trusted = check.trusted;
  }
  const apiRoot = apiRootOf(event, route.path, door.host(event));
  return operation(params, {
    trusted,
    channel: trusted ? 'api' : 'public_form',
    ...(apiRoot ? { apiRoot } : {}),
    apiRootPath: apiRootPathOf(event, route.path),
    ...door.client(event),
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
