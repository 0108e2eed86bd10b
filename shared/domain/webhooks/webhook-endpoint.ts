import * as v from 'valibot';
import { type NewsletterError, newsletterError } from '../errors.ts';
import { EVENT_TYPES, type EventType } from '../events/event-catalogue.ts';
import type { EndpointHealth } from './webhook-retries.ts';
import type { SigningSecret } from './webhook-signing.ts';
import { parseWebhookUrl, type WebhookUrlPolicy } from './webhook-url.ts';

/** A registered webhook endpoint ([webhooks.endpoints]). */
export interface WebhookEndpoint extends EndpointHealth {
  /** `whe_` and 16 random hex digits. */
  readonly id: string;
  readonly url: string;
  /** The event types it receives; every type when empty. */
  readonly event_types: readonly EventType[];
  /** Newest first; a rotated-out one keeps signing until it retires ([webhooks.rotation]). */
  readonly secrets: readonly SigningSecret[];
  readonly description?: string;
  readonly created: string;
}

/** The most endpoints an account may register: each event is one delivery per endpoint. */
export const MAX_ENDPOINTS = 20;

/** A `whsec_` secret an admin brings: the Standard Webhooks libraries' form, 24 to 64 bytes. */
const SECRET = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

/** What an admin sends to register or change an endpoint. */
export const WebhookEndpointWriteSchema = v.strictObject({
  url: v.pipe(v.string(), v.description('https URL the events are POSTed to.')),
  event_types: v.optional(
    v.pipe(
      v.array(v.picklist(EVENT_TYPES)),
      v.description('Event types to deliver (docs/api.md, "Events"); all when empty or absent.'),
    ),
  ),
  secret: v.optional(
    v.pipe(
      v.string(),
      v.regex(SECRET, 'secret: whsec_ and 24 to 64 bytes in base64'),
      v.description('Signing secret (whsec_…); one is drawn when absent.'),
    ),
  ),
  description: v.optional(v.pipe(v.string(), v.maxLength(200))),
});

/** A registration or change, checked. */
export interface EndpointWrite {
  readonly url: string;
  readonly event_types: readonly EventType[];
  readonly secret?: string;
  readonly description?: string;
}

/** Checks a registration ([webhooks.url]): a 400 names what is wrong, and nothing is stored. */
export function parseEndpointWrite(
  raw: unknown,
  policy: WebhookUrlPolicy,
): EndpointWrite | NewsletterError {
  const parsed = v.safeParse(WebhookEndpointWriteSchema, raw);
  if (!parsed.success)
    return newsletterError(
      'invalid_parameter',
      parsed.issues.map((issue) => `${v.getDotPath(issue) ?? 'body'}: ${issue.message}`).join('; '),
    );
  const url = parseWebhookUrl(parsed.output.url, policy);
  if (!(url instanceof URL)) return url;
  return {
    url: url.href,
    event_types: [...new Set(parsed.output.event_types ?? [])].sort(),
    ...(parsed.output.secret ? { secret: parsed.output.secret } : {}),
    ...(parsed.output.description ? { description: parsed.output.description } : {}),
  };
}

/** Whether an endpoint takes an event of `type` now: enabled, and the type one of its own. */
export function receives(endpoint: WebhookEndpoint, type: EventType): boolean {
  return (
    endpoint.state === 'enabled' &&
    (endpoint.event_types.length === 0 || endpoint.event_types.includes(type))
  );
}

/** An endpoint as an admin reads it: the secrets never leave the service after registration. */
export function endpointView(endpoint: WebhookEndpoint): Omit<WebhookEndpoint, 'secrets'> & {
  readonly secrets: readonly { readonly created: string; readonly retires_at?: string }[];
} {
  return {
    ...endpoint,
    secrets: endpoint.secrets.map(({ created, retires_at }) => ({
      created,
      ...(retires_at ? { retires_at } : {}),
    })),
  };
}
