import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestClient, trustedProxyHops } from '../../../functions/http/client-address.ts';

/** An API Gateway REST event from `peer` with an optional X-Forwarded-For and User-Agent. */
function eventFrom(peer: string, forwardedFor?: string, userAgent?: string): APIGatewayProxyEvent {
  return {
    headers: {
      ...(forwardedFor === undefined ? {} : { 'X-Forwarded-For': forwardedFor }),
      ...(userAgent === undefined ? {} : { 'User-Agent': userAgent }),
    },
    requestContext: { identity: { sourceIp: peer } },
  } as unknown as APIGatewayProxyEvent;
}

describe('[subscribe.trusted-proxy] the client address', () => {
  it('is the source IP by default, whatever X-Forwarded-For claims', () => {
    const event = eventFrom('198.51.100.7', '203.0.113.1, 192.0.2.9', 'Form/1.0');
    expect(requestClient(event, trustedProxyHops({}))).toEqual({
      clientIp: '198.51.100.7',
      userAgent: 'Form/1.0',
    });
  });

  it('behind one declared proxy is the address that proxy appended, not what the client wrote', () => {
    // The client sent "X-Forwarded-For: 203.0.113.1"; CloudFront appended the client's real
    // address 192.0.2.50; API Gateway saw CloudFront's 198.51.100.7.
    const event = eventFrom('198.51.100.7', '203.0.113.1, 192.0.2.50');
    expect(requestClient(event, 1).clientIp).toBe('192.0.2.50');
    // API Gateway may list the peer itself at the end: the same answer.
    expect(
      requestClient(eventFrom('198.51.100.7', '203.0.113.1, 192.0.2.50, 198.51.100.7'), 1),
    ).toEqual({ clientIp: '192.0.2.50' });
  });

  it('with two declared proxies counts two places from the right', () => {
    const event = eventFrom('198.51.100.7', '203.0.113.1, 192.0.2.50, 10.0.0.5');
    expect(requestClient(event, 2).clientIp).toBe('192.0.2.50');
  });

  it('falls back to the source IP when the chain is shorter than the declared proxies', () => {
    expect(requestClient(eventFrom('198.51.100.7'), 1).clientIp).toBe('198.51.100.7');
  });

  it('reads the declared hops from the environment, never trusting a malformed value', () => {
    expect(trustedProxyHops({ NEWSLETTER_TRUSTED_PROXY_HOPS: '1' })).toBe(1);
    expect(trustedProxyHops({ NEWSLETTER_TRUSTED_PROXY_HOPS: 'yes' })).toBe(0);
    expect(trustedProxyHops({ NEWSLETTER_TRUSTED_PROXY_HOPS: '-2' })).toBe(0);
  });
});
