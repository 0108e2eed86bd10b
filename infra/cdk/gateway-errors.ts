import { ResponseType } from 'aws-cdk-lib/aws-apigateway';
import { ERROR_STATUS, type ErrorCode } from '../../shared/domain/errors.ts';

/** One error API Gateway answers by itself, without reaching a function. */
export interface GatewayError {
  readonly type: ResponseType;
  readonly code: ErrorCode;
  /** Static text: gateway templates are not escaped, so nothing from the request goes in. */
  readonly message: string;
}

/**
 * API Gateway's own errors, rewritten into the error shape every function answers with. The
 * status follows from the code (shared/errors.ts pairs them), so the two cannot disagree.
 */
export const GATEWAY_ERRORS: readonly GatewayError[] = [
  // REST APIs answer an unknown path (and a known path with an undefined method) with a 403
  // "Missing Authentication Token". Wrong methods on our paths never get here: every route has
  // an ANY method whose function answers 405, so what is left is an unknown path.
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    code: 'not_found',
    message: 'There is no endpoint at this path.',
  },
  {
    type: ResponseType.RESOURCE_NOT_FOUND,
    code: 'not_found',
    message: 'There is no endpoint at this path.',
  },
  {
    type: ResponseType.THROTTLED,
    code: 'rate_limited',
    message: 'Too many requests; please try again in a moment.',
  },
  {
    type: ResponseType.QUOTA_EXCEEDED,
    code: 'rate_limited',
    message: 'Too many requests; please try again later.',
  },
  // API Gateway refuses bodies over 10 MB itself; the functions refuse anything over 64 KiB.
  // Both are "body too large", so a client sees one answer (400) whatever the size.
  {
    type: ResponseType.REQUEST_TOO_LARGE,
    code: 'body_too_large',
    message: 'The request body is too large (at most 64 KiB).',
  },
  {
    type: ResponseType.ACCESS_DENIED,
    code: 'forbidden',
    message: 'This request is not allowed.',
  },
  {
    type: ResponseType.WAF_FILTERED,
    code: 'forbidden',
    message: 'This request is not allowed.',
  },
  {
    type: ResponseType.INTEGRATION_FAILURE,
    code: 'unavailable',
    message: 'The service is temporarily unavailable; please try again shortly.',
  },
  {
    type: ResponseType.INTEGRATION_TIMEOUT,
    code: 'unavailable',
    message: 'The service is temporarily unavailable; please try again shortly.',
  },
  // Catch-alls, for types the API cannot produce today (authorizers, validators, API keys).
  {
    type: ResponseType.DEFAULT_4XX,
    code: 'malformed_body',
    message: 'The request could not be understood.',
  },
  {
    type: ResponseType.DEFAULT_5XX,
    code: 'internal_error',
    message: 'Something went wrong on our side (request $context.requestId).',
  },
];

/** The body of an error response; `$context.requestId` is the only substitution used. */
export function errorBody(code: ErrorCode, message: string): string {
  return JSON.stringify({ code, message, data: { status: ERROR_STATUS[code] } });
}
