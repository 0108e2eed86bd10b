import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header } from './headers.ts';

/**
 * How many proxies the operator put in front of API Gateway (e.g. 1 for CloudFront). Only
 * then is X-Forwarded-For believed, and only as far as those proxies wrote it.
 */
export const TRUSTED_PROXY_HOPS_ENV = 'NEWSLETTER_TRUSTED_PROXY_HOPS';

/** The configured number of trusted proxies; 0 (trust no header) when unset. */
export function trustedProxyHops(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env[TRUSTED_PROXY_HOPS_ENV] ?? 0);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/** Who sent a request, as the rate limit and the consent evidence see it. */
export interface RequestClient {
  readonly clientIp?: string;
  readonly userAgent?: string;
}

/**
 * The client of a request. API Gateway's source IP is the peer that reached it; with `hops`
 * trusted proxies in front, the client is the address the outermost of them saw, which is
 * `hops` places from the right of X-Forwarded-For followed by that peer (each proxy appends
 * the address it received the request from). Anything further left was written by the
 * client and is never believed; a chain too short to hold that many proxies means the request
 * did not come through them, so the peer is the client.
 */
export function requestClient(event: APIGatewayProxyEvent, hops: number): RequestClient {
  const peer = event.requestContext?.identity?.sourceIp || undefined;
  const userAgent = header(event, 'user-agent') || undefined;
  let clientIp = peer;
  if (hops > 0 && peer) {
    const forwarded = (header(event, 'x-forwarded-for') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    // API Gateway may already have appended the peer itself; the proxy in front appended the
    // client's address last, so a client cannot make the last entry equal the peer.
    const chain = forwarded.at(-1) === peer ? forwarded : [...forwarded, peer];
    const position = chain.length - 1 - hops;
    if (position >= 0) clientIp = chain[position];
  }
  return { ...(clientIp ? { clientIp } : {}), ...(userAgent ? { userAgent } : {}) };
}
