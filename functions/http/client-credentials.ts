import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ClientCredentials } from '../../shared/operations/v2/check-client-key.ts';
import { header } from './headers.ts';

/**
 * The credentials of an API v2 request, as the original takes them: `client_key` and
 * `client_secret` in the query string, else HTTP Basic (key as user, secret as password). The
 * query string wins; values in a body are ignored, as the original ignores them. `undefined`:
 * no credentials (the request is anonymous); a half pair or a malformed header is presented
 * credentials that fail the check. A `Bearer` token is a signed-in person's (bearerToken), not
 * a key.
 */
export function clientCredentials(
  event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueQueryStringParameters'>,
): ClientCredentials | undefined {
  const query = event.multiValueQueryStringParameters ?? {};
  const clientKey = query.client_key?.[0];
  const clientSecret = query.client_secret?.[0];
  if (clientKey || clientSecret)
    return { clientKey: clientKey ?? '', clientSecret: clientSecret ?? '' };
  const authorization = header(event, 'authorization')?.trim() ?? '';
  const basic = /^basic\s+(\S+)$/i.exec(authorization);
  if (!basic?.[1]) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1
    ? { clientKey: decoded, clientSecret: '' }
    : { clientKey: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
}

/**
 * The bearer token of a request (`Authorization: Bearer <token>`): a signed-in person's
 * Cognito ID token on v2 ([console.token]); `undefined` when the header has another scheme.
 * An empty token is a token (that fails), not an anonymous call.
 */
export function bearerToken(event: Pick<APIGatewayProxyEvent, 'headers'>): string | undefined {
  const authorization = header(event, 'authorization')?.trim() ?? '';
  const bearer = /^bearer(?:\s+(.*))?$/i.exec(authorization);
  return bearer ? (bearer[1] ?? '').trim() : undefined;
}
