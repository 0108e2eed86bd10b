import type { APIGatewayProxyResult } from 'aws-lambda';
import { newsletterError } from '../../shared/domain/errors.ts';
import type { RouteEntry } from '../route-table/route-entry.ts';
import { errorResponse } from './responses.ts';

/**
 * The 405 for a method the route does not serve, with an `Allow` header; undefined for its
 * own methods. API Gateway sends every other method of the route's path to the route's
 * function (its ANY method), whatever the body, so the answer is the same for every content
 * type. Checked first, before any parsing.
 */
export function methodNotAllowed(
  route: Pick<RouteEntry, 'path' | 'methods'>,
  method: string,
): APIGatewayProxyResult | undefined {
  if ((route.methods as readonly string[]).includes(method)) return undefined;
  const response = errorResponse(
    newsletterError('method_not_allowed', `${route.path} accepts ${route.methods.join(' and ')}.`),
  );
  return { ...response, headers: { ...response.headers, Allow: route.methods.join(', ') } };
}
