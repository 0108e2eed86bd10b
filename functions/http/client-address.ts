import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header } from './headers.ts';

/**
 * The header the stack's CloudFront distribution adds to every request it passes to the API,
 * holding the origin secret ([http.front-door]). CloudFront writes it over any a viewer sent.
 */
export const ORIGIN_HEADER = 'x-newsletter-origin';

/**
 * Headers the distribution's viewer-request function writes on every API request, over any a
 * viewer sent: the address the viewer connected from, and the host it addressed.
 */
export const VIEWER_IP_HEADER = 'x-newsletter-viewer-ip';
export const VIEWER_HOST_HEADER = 'x-newsletter-viewer-host';

/**
 * The origin secrets a function accepts, comma-separated: the one CloudFront sends, and while a
 * rotation is under way the one before (docs/deploy.md, "Rotating the origin secret").
 */
export const ORIGIN_SECRETS_ENV = 'NEWSLETTER_ORIGIN_SECRETS';

/** Who sent a request, as the rate limit and the consent evidence see it. */
export interface RequestClient {
  readonly clientIp?: string;
  readonly userAgent?: string;
}

/** How a function tells a request that came through the stack's CloudFront from any other. */
export interface FrontDoor {
  /** Whether the request carries an origin secret the stack accepts: it came through CloudFront. */
  proxied(event: Pick<APIGatewayProxyEvent, 'headers'>): boolean;
  /**
   * The client: the viewer's address CloudFront's function wrote, for a request that came
   * through CloudFront; else API Gateway's source IP, the peer that reached it. No
   * X-Forwarded-For entry is ever believed: its left part is the client's own writing.
   */
  client(event: APIGatewayProxyEvent): RequestClient;
  /**
   * The host the client addressed, for links in mails: the viewer's Host as CloudFront's
   * function passed it, for a request that came through CloudFront; else the Host header.
   */
  host(event: Pick<APIGatewayProxyEvent, 'headers'>): string | undefined;
}

// A Host value: a DNS name or an IPv4 address, an optional port; anything else is not believed.
const HOST = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?$/;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * The front door of a function, from its environment (read once per container). Without
 * origin secrets (a function run outside the stack) no request counts as proxied.
 */
export function frontDoor(env: NodeJS.ProcessEnv = process.env): FrontDoor {
  const secrets = (env[ORIGIN_SECRETS_ENV] ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret.length > 0)
    .map(digest);
  const proxied = (event: Pick<APIGatewayProxyEvent, 'headers'>): boolean => {
    const given = header(event, ORIGIN_HEADER);
    if (given === undefined || secrets.length === 0) return false;
    // Digests of equal length, compared in constant time: the time says nothing of the secret.
    const mine = digest(given);
    return secrets.some((secret) => timingSafeEqual(secret, mine));
  };
  return {
    proxied,
    client(event) {
      const userAgent = header(event, 'user-agent') || undefined;
      const viewer = proxied(event) ? header(event, VIEWER_IP_HEADER)?.trim() : undefined;
      const clientIp =
        viewer && isIP(viewer) !== 0
          ? viewer
          : event.requestContext?.identity?.sourceIp || undefined;
      return { ...(clientIp ? { clientIp } : {}), ...(userAgent ? { userAgent } : {}) };
    },
    host(event) {
      const viewer = proxied(event) ? header(event, VIEWER_HOST_HEADER)?.trim() : undefined;
      const host = viewer && HOST.test(viewer) ? viewer : header(event, 'host');
      return host || undefined;
    },
  };
}
