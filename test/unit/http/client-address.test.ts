import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { apiRootOf } from '../../../functions/http/api-root.ts';
import { frontDoor } from '../../../functions/http/client-address.ts';

const SECRET = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4';
const door = frontDoor({ NEWSLETTER_ORIGIN_SECRETS: `${SECRET},OlderSecretStillAccepted` });

/** An API Gateway REST event from `peer` with the given headers. */
function eventFrom(peer: string, headers: Record<string, string> = {}): APIGatewayProxyEvent {
  return {
    headers,
    path: '/api/newsletter/v1/subscribe',
    requestContext: { identity: { sourceIp: peer }, path: '/api/newsletter/v1/subscribe' },
  } as unknown as APIGatewayProxyEvent;
}

/** What the stack's CloudFront adds: its origin secret and the viewer-request function's headers. */
const throughCloudFront = (viewerIp: string, host = 'news.example.com') => ({
  'X-Newsletter-Origin': SECRET,
  'x-newsletter-viewer-ip': viewerIp,
  'x-newsletter-viewer-host': host,
});

describe('[http.front-door] the client address', () => {
  it('is the source IP of a direct call, whatever X-Forwarded-For or our own headers claim', () => {
    const forged = eventFrom('198.51.100.7', {
      'X-Forwarded-For': '203.0.113.1, 192.0.2.9',
      'x-newsletter-viewer-ip': '203.0.113.77',
      'x-newsletter-viewer-host': 'evil.example',
      'User-Agent': 'Form/1.0',
    });
    expect(door.proxied(forged)).toBe(false);
    expect(door.client(forged)).toEqual({ clientIp: '198.51.100.7', userAgent: 'Form/1.0' });
    expect(door.host({ headers: { ...forged.headers, Host: 'abc.execute-api.example' } })).toBe(
      'abc.execute-api.example',
    );
  });

  it('is the viewer address CloudFront wrote, beside an origin secret the stack accepts', () => {
    const event = eventFrom('130.176.1.1', {
      'X-Forwarded-For': '203.0.113.1, 192.0.2.50',
      ...throughCloudFront('192.0.2.50'),
    });
    expect(door.proxied(event)).toBe(true);
    expect(door.client(event).clientIp).toBe('192.0.2.50');
    expect(door.host(event)).toBe('news.example.com');
    // The secret of the generation before, during a rotation.
    const older = eventFrom('130.176.1.1', {
      ...throughCloudFront('192.0.2.51'),
      'X-Newsletter-Origin': 'OlderSecretStillAccepted',
    });
    expect(door.client(older).clientIp).toBe('192.0.2.51');
  });

  it('believes nothing beside a wrong, partial or missing secret, or without secrets at all', () => {
    for (const secret of [`${SECRET}x`, SECRET.slice(0, 20), '', 'OlderSecret']) {
      const event = eventFrom('198.51.100.7', {
        ...throughCloudFront('203.0.113.5', 'evil.example'),
        'X-Newsletter-Origin': secret,
      });
      expect(door.proxied(event)).toBe(false);
      expect(door.client(event).clientIp).toBe('198.51.100.7');
    }
    const bare = frontDoor({});
    const event = eventFrom('198.51.100.7', throughCloudFront('203.0.113.5'));
    expect(bare.proxied(event)).toBe(false);
    expect(bare.client(event).clientIp).toBe('198.51.100.7');
  });

  it('takes no viewer address or host that is not one', () => {
    const event = eventFrom('130.176.1.1', {
      ...throughCloudFront('not-an-ip, 192.0.2.9', 'evil.example/path?'),
      Host: 'abc.execute-api.example',
    });
    expect(door.client(event).clientIp).toBe('130.176.1.1');
    expect(door.host(event)).toBe('abc.execute-api.example');
  });
});

describe('[http.forwarded-proto] links in mails', () => {
  const root = (proto: string | undefined) =>
    apiRootOf(
      eventFrom('130.176.1.1', proto === undefined ? {} : { 'X-Forwarded-Proto': proto }),
      '/subscribe',
      'news.example.com',
    );

  it('take the scheme http or https from the nearest proxy, and nothing else', () => {
    expect(root('https')).toBe('https://news.example.com/api/newsletter/v1');
    expect(root('http')).toBe('http://news.example.com/api/newsletter/v1');
    // API Gateway appends its own; what a client wrote before it is not read.
    expect(root('javascript, https')).toBe('https://news.example.com/api/newsletter/v1');
    expect(root('HTTP')).toBe('http://news.example.com/api/newsletter/v1');
  });

  it('fall back to https for any other scheme or none', () => {
    for (const proto of ['javascript', 'data', 'ftp', 'https://evil.example/#', '', 'http, evil']) {
      expect(root(proto)).toBe('https://news.example.com/api/newsletter/v1');
    }
    expect(root(undefined)).toBe('https://news.example.com/api/newsletter/v1');
  });
});
