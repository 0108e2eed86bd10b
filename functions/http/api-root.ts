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
  return `${scheme}://${host}${apiRootPathOf(event, routePath)}`;
}

/**
 * The path part of `{api_root}` on the host this request reached: the request's path without
 * the route's own path. A route path's `{name}` segments stand for any one segment, as in API
 * Gateway (`/newsletters/{id}/view`).
 */
export function apiRootPathOf(
  event: Pick<APIGatewayProxyEvent, 'requestContext' | 'path'>,
  routePath: string,
): string {
  const fullPath = (event.requestContext?.path ?? event.path ?? '').replace(/\/+$/, '');
  const pattern = routePath
    .split('/')
    .map((segment) =>
      /^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return fullPath.replace(new RegExp(`${pattern}$`), '');
}
