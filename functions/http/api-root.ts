import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header } from './headers.ts';

/**
 * `{api_root}` as this request reached us, for links in mails: scheme and host from the
 * request, and the path up to the route's own path. That keeps the stage (`/api`) on the
 * execute-api host and drops it behind a custom domain's base path mapping, where it is not
 * part of the public URL.
 */
export function apiRootOf(
  event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext' | 'path'>,
  routePath: string,
): string | undefined {
  const host = header(event, 'host');
  if (!host) return undefined;
  const scheme = header(event, 'x-forwarded-proto')?.split(',')[0]?.trim() || 'https';
  const fullPath = (event.requestContext?.path ?? event.path ?? '').replace(/\/+$/, '');
  const root = fullPath.endsWith(routePath) ? fullPath.slice(0, -routePath.length) : fullPath;
  return `${scheme}://${host}${root}`;
}
