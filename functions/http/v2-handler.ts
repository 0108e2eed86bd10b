import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ClientKeyRecord } from '../../shared/domain/client-key.ts';
import {
  isNewsletterError,
  type NewsletterError,
  newsletterError,
} from '../../shared/domain/errors.ts';
import type { Person } from '../../shared/domain/person.ts';
import type { CallContext } from '../../shared/operations/dependencies.ts';
import { checkClientKey } from '../../shared/operations/v2/check-client-key.ts';
import {
  checkPersonToken,
  personOnPublicRoute,
} from '../../shared/operations/v2/check-person-token.ts';
import { type HttpMethod, type RouteEntry, roleNeeded } from '../route-table/route-entry.ts';
import { apiRootOf, apiRootPathOf } from './api-root.ts';
import { frontDoor } from './client-address.ts';
import { bearerToken, clientCredentials } from './client-credentials.ts';
import { allowedOrigins, corsMiddleware, preflightResponse } from './cors.ts';
import type { FunctionRuntime } from './function-runtime.ts';
import { header } from './headers.ts';
import { methodNotAllowed } from './method-guard.ts';
import { nestBracketedFields } from './nested-fields.ts';
import { observability, requestIdOf } from './observability.ts';
import { parseRequest, type RequestParameters } from './parse-request.ts';
import { errorResponse } from './responses.ts';
import type { CallerChecks } from './v2-function.ts';

/** What a v2 operation answers on success: a status (200 by default), a body, headers. */
export interface V2Answer {
  readonly status?: 200 | 201;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** A body that is not JSON (a CSV report); `headers` then say its type. */
  readonly text?: string;
}

/**
 * Who calls a v2 route: a key, or a signed-in person (neither: anonymous), and the request's
 * context. `trusted` is true for both.
 */
export interface V2Caller extends CallContext {
  readonly key?: ClientKeyRecord;
  readonly person?: Person;
}

/** What of the request an operation may look at besides its parameters. */
export interface V2Request {
  /** The `Accept` header: a report answers CSV to `text/csv`. */
  readonly accept?: string;
  /** A `text/csv` body, on a route that takes one (`csvBody`), as text. */
  readonly csv?: string;
}

/** What a v2 route takes beyond JSON and forms. */
export interface V2HandlerOptions {
  /**
   * A `text/csv` body (up to MAX_CSV_BYTES), handed to the operation as text; the query string
   * still gives the parameters. Other routes refuse it, as any body of another type.
   */
  readonly csvBody?: boolean;
  /**
   * Whether a request asks for the CSV answer (`wantsCsv` of v2-csv-answer.ts): required of a
   * route whose table entry has one (`csv.answer`), whose role may depend on it; passed in so
   * that only those functions bundle the content negotiation.
   */
  readonly wantsCsv?: (request: V2Request) => boolean;
}

/** The largest CSV body a route takes: a part of 1,000 rows with room for long profiles. */
export const MAX_CSV_BYTES = 1024 * 1024;

/** What one method of a v2 route does once its caller is known. */
export type V2Operation = (
  params: RequestParameters,
  caller: V2Caller,
  request: V2Request,
) => Promise<V2Answer | NewsletterError>;

const JSON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;

/**
 * An error as v2 answers it: our error shape, which is WordPress's, with the original's code
 * `-1` for an unknown subscriber, list or newsletter (decisions part 11, [v2.errors]).
 */
function v2ErrorResponse(error: NewsletterError, requestId: string): APIGatewayProxyResult {
  const response = errorResponse(error, requestId);
  if (error.code !== 'not_found') return response;
  const body = JSON.parse(response.body) as Record<string, unknown>;
  return { ...response, body: JSON.stringify({ ...body, code: '-1' }) };
}

/** Read once per container, like the rest of the function's configuration. */
const door = frontDoor();

/**
 * The handler of a v2 route: method guard, CORS on the public ones, parameters (query, body,
 * path), the client key as the route table says for the method ([v2.keys]), the operation,
 * and the answer with its status and headers. Rules live in the operations; this adapts HTTP.
 */
export function v2Handler(
  route: RouteEntry,
  runtime: FunctionRuntime,
  keyCheck: CallerChecks,
  operations: Readonly<Partial<Record<HttpMethod, V2Operation>>>,
  options: V2HandlerOptions = {},
): middy.MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  if (route.csv?.answer !== undefined && !options.wantsCsv) {
    throw new Error(`${route.name} answers CSV: its handler must pass wantsCsv`);
  }
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>();
  if (route.cors) handler.use(corsMiddleware(allowedOrigins()));
  return handler.use(observability(runtime, route.name)).handler(async (event, context) => {
    if (route.cors && event.httpMethod === 'OPTIONS') return preflightResponse(route);
    const wrongMethod = methodNotAllowed(route, event.httpMethod);
    if (wrongMethod) return wrongMethod;
    const method = event.httpMethod as HttpMethod;
    const operation = operations[method];
    const policy = route.clientKey?.[method];
    if (!operation || !policy) throw new Error(`${route.name} has no ${method} operation`);
    const requestId = requestIdOf(event, context);
    const answer = await answerOf(event, route, method, keyCheck, operation, options);
    if (isNewsletterError(answer)) return v2ErrorResponse(answer, requestId);
    return {
      statusCode: answer.status ?? 200,
      headers: { ...JSON_HEADERS, ...answer.headers },
      body: answer.text ?? JSON.stringify(answer.body),
    };
  });
}

async function answerOf(
  event: APIGatewayProxyEvent,
  route: RouteEntry,
  method: HttpMethod,
  checks: CallerChecks,
  operation: V2Operation,
  options: V2HandlerOptions,
): Promise<V2Answer | NewsletterError> {
  const routePath = route.path;
  const policy = route.clientKey?.[method] ?? 'optional';
  const csv = options.csvBody ? csvBodyOf(event) : undefined;
  if (isNewsletterError(csv)) return csv;
  const parsed = await parseRequest(csv === undefined ? event : { ...event, body: null });
  if (isNewsletterError(parsed)) return parsed;
  const params = nestBracketedFields(parsed);
  for (const [name, value] of Object.entries(event.pathParameters ?? {})) {
    if (value !== undefined) params[name] = value;
  }
  const client = door.client(event);
  const token = bearerToken(event);
  const accept = header(event, 'accept');
  // A CSV answer may need more of a person than the method's JSON ([report.editor]).
  const role = roleNeeded(route, method, options.wantsCsv?.({ accept }) === true);
  const keyed = policy === 'read' || policy === 'write' || route.clientKeys === false;
  let key: ClientKeyRecord | undefined;
  let person: Person | undefined;
  if (token !== undefined && keyed) {
    // A signed-in person: the role the route table asks for this method ([console.roles]).
    const checked = checks.people
      ? await checkPersonToken({ ...checks, people: checks.people }, token, role, client.clientIp)
      : newsletterError('tnp_auth_error', 'This API accepts no sign-in tokens.');
    if (isNewsletterError(checked)) return checked;
    person = checked;
  } else if (token !== undefined && checks.people) {
    person = await personOnPublicRoute({ people: checks.people }, token, role);
  }
  const credentials = person ? undefined : clientCredentials(event);
  if (person) {
    // Signed in: no key is looked at.
  } else if (credentials) {
    if (route.clientKeys === false)
      return newsletterError('forbidden', 'Only a signed-in admin may do this, not a key.');
    const checked = await checkClientKey(
      checks,
      credentials,
      policy === 'write' ? 'write' : 'read',
      client.clientIp,
    );
    if (isNewsletterError(checked)) return checked;
    // A read key on a public route that writes grants nothing: the call is anonymous, as
    // without it (clients of the original send whatever key they have) ([v2.subscriptions]).
    key = policy === 'optional-write' && checked.permission !== 'write' ? undefined : checked;
  } else if (keyed) {
    // WordPress's own answer to an anonymous call of a protected route ([v2.auth-errors]).
    return newsletterError('rest_forbidden', 'Sorry, you are not allowed to do that.');
  }
  const trusted = key !== undefined || person !== undefined;
  // Mails of a v2 call link to the pages of v1, which serve the links.
  const apiRoot = apiRootOf(event, routePath, door.host(event))?.replace(/\/v2$/, '/v1');
  const request = {
    ...(accept === undefined ? {} : { accept }),
    ...(csv === undefined ? {} : { csv }),
  };
  return operation(
    params,
    {
      trusted,
      channel: trusted ? 'api' : 'public_form',
      ...(key ? { key } : {}),
      ...(person ? { person } : {}),
      ...(apiRoot ? { apiRoot } : {}),
      apiRootPath: apiRootPathOf(event, routePath).replace(/\/v2$/, '/v1'),
      ...client,
    },
    request,
  );
}

/** The body as text when it is `text/csv`; undefined for any other type (parsed as usual). */
function csvBodyOf(event: APIGatewayProxyEvent): string | undefined | NewsletterError {
  const mediaType = (header(event, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'text/csv') return undefined;
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  if (body.length > MAX_CSV_BYTES)
    return newsletterError(
      'body_too_large',
      `The CSV body is larger than ${MAX_CSV_BYTES / 1024} KiB: post the file in smaller parts.`,
    );
  return body.toString('utf8');
}
