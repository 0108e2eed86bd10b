import type { APIGatewayProxyResult } from 'aws-lambda';
import { type NewsletterError, newsletterError } from '../../shared/domain/errors.ts';

const JSON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;

/** A 200 with a JSON body. */
export function jsonResponse(body: unknown): APIGatewayProxyResult {
  return { statusCode: 200, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}

/**
 * The one place an error value becomes HTTP: its status, and the body clients of the original
 * system parse, `{"code", "message", "data": {"status"}}`. A 500 carries the request id so a
 * person can quote it; its details are only in the log.
 */
export function errorResponse(error: NewsletterError, requestId?: string): APIGatewayProxyResult {
  const data: Record<string, unknown> = { ...error.data, status: error.status };
  if (error.status >= 500 && requestId) data.request_id = requestId;
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (error.status === 503) headers['Retry-After'] = '30';
  return {
    statusCode: error.status,
    headers,
    body: JSON.stringify({ code: error.code, message: error.message, data }),
  };
}

/** The generic answer for a bug: no detail leaves the function. */
export function internalErrorResponse(requestId?: string): APIGatewayProxyResult {
  return errorResponse(
    newsletterError('internal_error', 'Something went wrong on our side. Please try again later.'),
    requestId,
  );
}
