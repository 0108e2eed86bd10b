import { DependencyError } from '../shared/domain/errors.ts';
import { SettingsError } from '../shared/domain/parse-settings.ts';
import { CliError } from './cli-error.ts';
import type { Connection } from './connection/connection.ts';

/** The network error code of an error or of any error in its cause chain. */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code && /^E[A-Z]+$/.test(code)) return code;
    // AggregateError (happy eyeballs) keeps the per-address errors in `errors`.
    const inner = (current as { errors?: unknown[] }).errors?.[0];
    current = current.cause ?? inner;
  }
  return undefined;
}

/**
 * One sentence for an operator, saying what failed and what to try. The cases are the ones a
 * person meets at a terminal: no credentials, no region, the local service not running, a
 * table that is not there, missing permissions.
 */
export function explainError(error: unknown, connection: Connection | undefined): string {
  if (error instanceof CliError || error instanceof SettingsError) return error.message;
  const cause = error instanceof DependencyError && error.cause ? error.cause : error;
  if (!(cause instanceof Error)) return String(cause);
  const where = connection ? ` (${connection.description})` : '';
  const code = networkCode(cause);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ECONNRESET') {
    return connection?.credentials
      ? `Cannot reach the local service${where}: is \`npm start\` running? (${code})`
      : `Cannot reach the endpoint${where}: ${code}`;
  }
  if (cause.name === 'CredentialsProviderError' || /credential/i.test(cause.message)) {
    return `No AWS credentials found: configure a profile (AWS_PROFILE) or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or use --local for the local service. (${cause.message})`;
  }
  if (/region is missing/i.test(cause.message)) {
    return 'No AWS region configured: pass --region or set AWS_REGION (or a region in your profile).';
  }
  if (cause.name === 'ResourceNotFoundException') {
    return `Table ${connection?.table ?? '(none)'} not found${where}. Check --table / NEWSLETTER_TABLE and the region.`;
  }
  if (cause.name === 'AccessDeniedException' || cause.name === 'UnrecognizedClientException') {
    return `AWS refused the request${where}: ${cause.message}`;
  }
  return `${cause.name}: ${cause.message}`;
}
