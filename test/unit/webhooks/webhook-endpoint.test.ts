import { describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import {
  endpointView,
  parseEndpointWrite,
  receives,
  type WebhookEndpoint,
} from '../../../shared/domain/webhooks/webhook-endpoint.ts';

const onAws = { allowLocalHttp: false };
const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

describe('[webhooks.endpoints] a registration', () => {
  it('takes a public https URL, event types (all when none) and an optional secret', () => {
    expect(
      parseEndpointWrite(
        {
          url: 'https://hooks.example.com/in',
          event_types: ['subscriber.unsubscribed', 'subscriber.confirmed', 'subscriber.confirmed'],
          secret,
        },
        onAws,
      ),
    ).toEqual({
      url: 'https://hooks.example.com/in',
      event_types: ['subscriber.confirmed', 'subscriber.unsubscribed'],
      secret,
    });
    expect(parseEndpointWrite({ url: 'https://hooks.example.com/in' }, onAws)).toEqual({
      url: 'https://hooks.example.com/in',
      event_types: [],
    });
  });

  it('refuses, naming the field, an unknown type, a malformed secret, a private URL or more', () => {
    const refusal = (body: unknown) => {
      const parsed = parseEndpointWrite(body, onAws);
      return isNewsletterError(parsed) ? parsed.message : 'accepted';
    };
    expect(refusal({ url: 'https://a.example.com', event_types: ['subscriber.nope'] })).toMatch(
      /^event_types\.0: /,
    );
    expect(refusal({ url: 'https://a.example.com', secret: 'hunter2' })).toMatch(/^secret: /);
    expect(refusal({ url: 'https://10.0.0.1/in' })).toMatch(/^url: must be a public host/);
    expect(refusal({ url: 'https://a.example.com', owner: 'x' })).toMatch(/owner/);
  });

  it('receives its types only while enabled, and is read without its secrets', () => {
    const endpoint: WebhookEndpoint = {
      id: 'whe_1',
      url: 'https://hooks.example.com/in',
      event_types: ['subscriber.confirmed'],
      secrets: [{ secret, created: '2026-11-29T00:00:00.000Z' }],
      state: 'enabled',
      created: '2026-11-29T00:00:00.000Z',
    };
    expect(receives(endpoint, 'subscriber.confirmed')).toBe(true);
    expect(receives(endpoint, 'subscriber.deleted')).toBe(false);
    expect(receives({ ...endpoint, event_types: [] }, 'subscriber.deleted')).toBe(true);
    expect(receives({ ...endpoint, state: 'disabled' }, 'subscriber.confirmed')).toBe(false);
    expect(JSON.stringify(endpointView(endpoint))).not.toContain(secret);
  });
});
