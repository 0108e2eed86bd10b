import { randomBytes } from 'node:crypto';
import type { Delivery, WebhookStore } from '../../adapters/webhooks/webhook-ports.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import {
  endpointView,
  MAX_ENDPOINTS,
  parseEndpointWrite,
  type WebhookEndpoint,
} from '../../domain/webhooks/webhook-endpoint.ts';
import { newSigningSecret, rotateSecrets } from '../../domain/webhooks/webhook-signing.ts';
import type { WebhookUrlPolicy } from '../../domain/webhooks/webhook-url.ts';

/** What managing endpoints needs. */
export interface ManageDeps {
  readonly webhooks: WebhookStore;
  readonly now: () => Date;
  readonly urlPolicy: WebhookUrlPolicy;
  /** Random bytes, for ids and secrets (tests pass their own). */
  readonly random?: (size: number) => Buffer;
}

/** An endpoint as an admin reads it: no secret. */
export type EndpointView = ReturnType<typeof endpointView>;

/** An endpoint with the secret that now signs, shown once: at registration and rotation. */
export type EndpointWithSecret = EndpointView & { readonly secret: string };

/** The most log entries one read or replay takes. */
export const MAX_LOG_ENTRIES = 1_000;

const notFound = (): NewsletterError =>
  newsletterError('not_found', 'There is no webhook endpoint with this id');

/**
 * Registers an endpoint ([webhooks.endpoints]): checked whole before anything is stored, at most
 * MAX_ENDPOINTS, the admin's secret or a drawn one, shown in this answer only.
 */
export async function registerEndpoint(
  deps: ManageDeps,
  body: unknown,
): Promise<EndpointWithSecret | NewsletterError> {
  const write = parseEndpointWrite(body, deps.urlPolicy);
  if (isNewsletterError(write)) return write;
  if ((await deps.webhooks.listEndpoints()).length >= MAX_ENDPOINTS)
    return newsletterError(
      'invalid_parameter',
      `At most ${MAX_ENDPOINTS} webhook endpoints; remove one first`,
    );
  const now = deps.now().toISOString();
  const secret = write.secret ?? newSigningSecret(deps.random);
  const endpoint: WebhookEndpoint = {
    id: `whe_${(deps.random ?? randomBytes)(8).toString('hex')}`,
    url: write.url,
    event_types: write.event_types,
    secrets: [{ secret, created: now }],
    ...(write.description ? { description: write.description } : {}),
    state: 'enabled',
    created: now,
  };
  await deps.webhooks.saveEndpoint(endpoint);
  return { ...endpointView(endpoint), secret };
}

/** Every endpoint, oldest first, without secrets. */
export async function listEndpoints(deps: ManageDeps): Promise<EndpointView[]> {
  return [...(await deps.webhooks.listEndpoints())]
    .sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id))
    .map(endpointView);
}

/**
 * Changes an endpoint's URL, types or description; enabling it again (`state: "enabled"`) clears
 * its failing time and reason, and its waiting deliveries go out at the next sweep.
 */
export async function updateEndpoint(
  deps: ManageDeps,
  id: string,
  body: unknown,
): Promise<EndpointView | NewsletterError> {
  const existing = await deps.webhooks.getEndpoint(id);
  if (!existing) return notFound();
  const { state, ...rest } = (body ?? {}) as { state?: unknown };
  if (state !== undefined && state !== 'enabled' && state !== 'disabled')
    return newsletterError('invalid_parameter', 'state: "enabled" or "disabled"');
  const write = parseEndpointWrite({ url: existing.url, ...rest }, deps.urlPolicy);
  if (isNewsletterError(write)) return write;
  if (write.secret) return newsletterError('invalid_parameter', 'secret: rotate it instead');
  const {
    failing_since: _since,
    disabled_reason: _reason,
    description: _description,
    ...kept
  } = existing;
  const updated: WebhookEndpoint = {
    ...kept,
    url: write.url,
    event_types:
      (rest as { event_types?: unknown }).event_types === undefined
        ? existing.event_types
        : write.event_types,
    ...((write.description ?? existing.description)
      ? { description: write.description ?? existing.description }
      : {}),
    ...(state === 'enabled'
      ? { state: 'enabled' as const }
      : state === 'disabled'
        ? { state: 'disabled' as const, disabled_reason: 'disabled by an admin' }
        : {
            state: existing.state,
            ...(existing.failing_since ? { failing_since: existing.failing_since } : {}),
            ...(existing.disabled_reason ? { disabled_reason: existing.disabled_reason } : {}),
          }),
  };
  await deps.webhooks.saveEndpoint(updated);
  return endpointView(updated);
}

/** A new secret that signs from now; the current one keeps signing a day ([webhooks.rotation]). */
export async function rotateEndpointSecret(
  deps: ManageDeps,
  id: string,
): Promise<EndpointWithSecret | NewsletterError> {
  const existing = await deps.webhooks.getEndpoint(id);
  if (!existing) return notFound();
  const secret = newSigningSecret(deps.random);
  const rotated = { ...existing, secrets: rotateSecrets(existing.secrets, secret, deps.now()) };
  await deps.webhooks.saveEndpoint(rotated);
  return { ...endpointView(rotated), secret };
}

/** Removes an endpoint: nothing more is delivered to it. */
export async function removeEndpoint(
  deps: ManageDeps,
  id: string,
): Promise<'Deleted' | NewsletterError> {
  if (!(await deps.webhooks.getEndpoint(id))) return notFound();
  await deps.webhooks.deleteEndpoint(id);
  return 'Deleted';
}

/** An endpoint's delivery log ([webhooks.log]), newest event first, without the bodies. */
export async function readDeliveryLog(
  deps: ManageDeps,
  id: string,
  limit = 100,
): Promise<Omit<Delivery, 'body'>[] | NewsletterError> {
  if (!(await deps.webhooks.getEndpoint(id))) return notFound();
  const entries = await deps.webhooks.deliveriesOf(
    id,
    Math.max(1, Math.min(MAX_LOG_ENTRIES, limit)),
  );
  return entries.map(({ body: _body, ...entry }) => entry);
}
