import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { RouteEntry } from '../route-table/route-entry.ts';
import { header } from './headers.ts';

/** Environment variable holding the allowed origins of the public routes (set by the stack). */
export const CORS_ORIGINS_ENV = 'NEWSLETTER_CORS_ORIGINS';

/** Which origins may read the public routes' answers: any, or a list. */
export type AllowedOrigins = '*' | readonly string[];

/** How long a browser may reuse a preflight answer (Chromium caps it at two hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/**
 * Reads the allowed origins: `*` (the default: any site's HTML form can already post to these
 * routes, so CORS adds no exposure) or a comma-separated list of origins.
 */
export function allowedOrigins(env: NodeJS.ProcessEnv = process.env): AllowedOrigins {
  const value = env[CORS_ORIGINS_ENV]?.trim();
  if (!value || value === '*') return '*';
  return value
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** The CORS headers of an answer to a request from `origin`; none for an origin not allowed. */
export function corsHeaders(
  origin: string | undefined,
  allowed: AllowedOrigins,
): Record<string, string> {
  if (allowed === '*') return { 'Access-Control-Allow-Origin': '*' };
  // The answer depends on the Origin header: caches must keep one copy per origin.
  const vary = { Vary: 'Origin' };
  return origin && allowed.includes(origin)
    ? { 'Access-Control-Allow-Origin': origin, ...vary }
    : vary;
}

/** The answer to a preflight (`OPTIONS`) of a public route: 204, what may follow, how long. */
export function preflightResponse(route: Pick<RouteEntry, 'methods'>): APIGatewayProxyResult {
  return {
    statusCode: 204,
    headers: {
      'Access-Control-Allow-Methods': [...route.methods, 'OPTIONS'].join(', '),
      // A JSON body needs Content-Type. Authorization is allowed because real browser clients
      // of the original send a bearer header with their public calls (WordPress allows it in
      // preflights); refusing it blocks the call and loses the signup. These routes never read
      // it: the key is only ever the api_key parameter ([http.cors-authorization]).
      'Access-Control-Allow-Headers': 'Content-Type, Authorization',
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    },
    body: '',
  };
}

/**
 * Adds the CORS headers to every answer of a public route, errors and 500s included, so a page
 * can read why a call failed. Keyed routes never use this: a key in a browser is a leaked key,
 * so nothing may invite a browser page to call them.
 */
export function corsMiddleware(
  allowed: AllowedOrigins,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  const add = (
    request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>,
  ): void => {
    if (!request.response) return;
    request.response = {
      ...request.response,
      headers: {
        ...request.response.headers,
        ...corsHeaders(header(request.event, 'origin'), allowed),
      },
    };
  };
  return { after: add, onError: add };
}
