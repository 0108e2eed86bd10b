/**
 * Errors are values: every expected failure of the function class comes back as a
 * `NewsletterError` the caller recognises with `isNewsletterError`. Only bugs are thrown.
 */

/** Error codes and the HTTP status each one maps to; the one place that pairs them. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  missing_parameter: 400,
  invalid_email: 400,
  unknown_list: 400,
  unknown_profile_field: 400,
  email_exists: 400,
  unknown_tag: 400,
  content_too_large: 400,
  malformed_body: 400,
  body_too_large: 400,
  /** API v2: credentials missing where a route needs them (WordPress's own code). */
  rest_forbidden: 401,
  /** API v2: an unknown client key or a wrong secret (the original's code). */
  tnp_auth_error: 401,
  forbidden: 403,
  private_list: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  /** API v2: the address is another subscriber's (the original: 400 and a bare string). */
  email_taken: 409,
  over_quota: 409,
  /** A list an issue still to be sent names cannot be deleted ([v2.lists-delete]). */
  list_in_use: 409,
  /** A person of that address is in the console's user pool already ([people.manage]). */
  person_exists: 409,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

/** A machine-readable error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** An expected failure, returned (never thrown) by every operation. */
export interface NewsletterError {
  readonly code: ErrorCode;
  /** A sentence a person understands; never contains secrets or internal details. */
  readonly message: string;
  /** The HTTP status the REST form answers with. */
  readonly status: number;
  /**
   * More for the caller, answered beside `status` in the error body's `data`: what an import
   * part wrote before a dependency failed ([v2.subscribers-import-stop]). Never a secret.
   */
  readonly data?: Readonly<Record<string, unknown>>;
}

const marker: unique symbol = Symbol.for('serverless-newsletter.error');

/** Makes an error value; the status always follows from the code. */
export function newsletterError(
  code: ErrorCode,
  message: string,
  data?: Readonly<Record<string, unknown>>,
): NewsletterError {
  const error = { code, message, status: ERROR_STATUS[code], ...(data ? { data } : {}) };
  // A non-enumerable brand keeps JSON output to {code, message, status} while letting the
  // guard tell our errors from a subscriber object that happens to have a `code` field.
  Object.defineProperty(error, marker, { value: true, enumerable: false });
  return Object.freeze(error);
}

/** Tells an error value from a result. */
export function isNewsletterError(value: unknown): value is NewsletterError {
  return typeof value === 'object' && value !== null && marker in value;
}

/** A dependency (DynamoDB, SES, SSM) failed or refused; becomes a 503 error value. */
export class DependencyError extends Error {
  constructor(
    readonly dependency: 'dynamodb' | 'ses' | 'ssm' | 'sqs' | 'scheduler' | 'cognito' | 'events',
    options?: { cause?: unknown },
  ) {
    super(`${dependency} unavailable`, options);
    this.name = 'DependencyError';
  }
}

/** The generic answer for a dependency failure; the cause goes to the log, not the caller. */
export function unavailable(): NewsletterError {
  return newsletterError(
    'unavailable',
    'The service is temporarily unavailable; please try again shortly.',
  );
}

/** Describes an error for a log line: its name, message and the chain of causes. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 4; depth += 1) {
    if (current instanceof Error) {
      parts.push(`${current.name}: ${current.message}`);
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return parts.join(' <- ');
}
