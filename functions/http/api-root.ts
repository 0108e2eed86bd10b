import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header } from './headers.ts';

/**
 * `{api_root}` as this request reached us, for links in mails: the scheme, the host the client
 * addressed (`host`, from the front door: the viewer's own through CloudFront), and the path up
 * to the route's own path. That keeps the stage (`/api`) on the execute-api host and drops it
 * behind a custom domain's base path mapping, where it is not part of the public URL.
 *
 * The scheme is the last X-Forwarded-Proto entry (the nearest proxy's, API Gateway's own) when
 * it is `http` or `https`; anything else is not a scheme a link may have, and `https` is used.
 */
export function apiRootOf(
  event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext' | 'path'>,
  routePath: string,
  host: string | undefined,
): string | undefined {
  if (!host) return undefined;
  const proto = header(event, 'x-forwarded-proto')?.split(',').at(-1)?.trim().toLowerCase();
  const scheme = proto === 'http' || proto === 'https' ? proto : 'https';
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
