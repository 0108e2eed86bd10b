import type { Delivery, WebhookSend, WebhookStore } from '../../adapters/webhooks/webhook-ports.ts';
import type { NewsletterEvent } from '../../domain/events/event-catalogue.ts';
import { receives, type WebhookEndpoint } from '../../domain/webhooks/webhook-endpoint.ts';
import { afterDelivery, nextAttemptAt } from '../../domain/webhooks/webhook-retries.ts';
import { signDelivery } from '../../domain/webhooks/webhook-signing.ts';

/** What delivering needs. */
export interface DeliveryDeps {
  readonly webhooks: WebhookStore;
  readonly send: WebhookSend;
  readonly now: () => Date;
}

/** How long a delivery's first attempt has before a retry sweep takes it for lost. */
const FIRST_ATTEMPT_GRACE_MS = 60_000;

/** What a round of deliveries did, for the function's log line. */
export interface DeliveryRound {
  readonly delivered: number;
  readonly failed: number;
  /** Deliveries already in the log (a replayed event): not sent again. */
  readonly repeated: number;
}

/**
 * Delivers events as they come off the bus ([webhooks.delivery]): each to every enabled
 * endpoint that takes its type, once per endpoint (a delivery is added only if the endpoint has
 * none for the event, so an event the bus hands over twice is sent once), attempted at once;
 * a failed attempt waits in the log for its retry (retryDue).
 */
export async function deliverEvents(
  deps: DeliveryDeps,
  events: readonly NewsletterEvent[],
): Promise<DeliveryRound> {
  const endpoints = await deps.webhooks.listEndpoints();
  const round = { delivered: 0, failed: 0, repeated: 0 };
  for (const event of events) {
    for (const endpoint of endpoints.filter((each) => receives(each, event.type))) {
      const delivery: Delivery = {
        endpoint_id: endpoint.id,
        event_id: event.id,
        event_time: event.time,
        event_type: event.type,
        body: JSON.stringify(event),
        status: 'pending',
        attempts: 0,
        created: deps.now().toISOString(),
        // Should this function stop before the first attempt is logged, a sweep sends it then.
        next_attempt_at: new Date(deps.now().getTime() + FIRST_ATTEMPT_GRACE_MS).toISOString(),
      };
      if (!(await deps.webhooks.addDelivery(delivery))) {
        round.repeated += 1;
        continue;
      }
      count(round, await attempt(deps, endpoint, delivery));
    }
  }
  return round;
}

/**
 * Tries again the deliveries whose time has come ([webhooks.retries]), on a schedule. A
 * disabled endpoint's deliveries wait: enabling it again makes them due.
 */
export async function retryDue(deps: DeliveryDeps): Promise<DeliveryRound> {
  const round = { delivered: 0, failed: 0, repeated: 0 };
  const endpoints = new Map<string, WebhookEndpoint | undefined>();
  for (const delivery of await deps.webhooks.dueDeliveries(deps.now())) {
    if (!endpoints.has(delivery.endpoint_id))
      endpoints.set(delivery.endpoint_id, await deps.webhooks.getEndpoint(delivery.endpoint_id));
    const endpoint = endpoints.get(delivery.endpoint_id);
    if (endpoint?.state !== 'enabled') continue;
    count(round, await attempt(deps, endpoint, delivery));
    // The attempt may have disabled the endpoint: its later deliveries wait then.
    endpoints.set(endpoint.id, await deps.webhooks.getEndpoint(endpoint.id));
  }
  return round;
}

/**
 * Sends an endpoint's logged deliveries again ([webhooks.replay]): the events named among its
 * latest `limit`, or every event since `since` (up to `limit`); each keeps its `webhook-id`, so a receiver that saw it drops
 * it. The number sent; an unknown endpoint is undefined.
 */
export async function replayDeliveries(
  deps: DeliveryDeps,
  endpointId: string,
  which: { readonly eventIds?: readonly string[]; readonly since?: Date },
  limit: number,
): Promise<DeliveryRound | undefined> {
  const endpoint = await deps.webhooks.getEndpoint(endpointId);
  if (!endpoint) return undefined;
  const logged = await deps.webhooks.deliveriesOf(endpointId, limit, which.since);
  const chosen = which.eventIds
    ? logged.filter((delivery) => which.eventIds?.includes(delivery.event_id))
    : logged;
  const round = { delivered: 0, failed: 0, repeated: 0 };
  for (const delivery of chosen) count(round, await attempt(deps, endpoint, delivery));
  return round;
}

function count(
  round: { delivered: number; failed: number },
  outcome: 'delivered' | 'failed' | 'pending',
): void {
  if (outcome === 'delivered') round.delivered += 1;
  else round.failed += 1;
}

/** One attempt: signed at its own time, logged, the endpoint's health moved. */
async function attempt(
  deps: DeliveryDeps,
  endpoint: WebhookEndpoint,
  delivery: Delivery,
): Promise<Delivery['status']> {
  const at = deps.now();
  const headers = signDelivery(
    { id: delivery.event_id, body: delivery.body, at },
    endpoint.secrets,
  );
  const outcome = await deps.send(new URL(endpoint.url), headers, delivery.body);
  const attempts = delivery.attempts + 1;
  const next = outcome.ok ? undefined : nextAttemptAt(attempts, at);
  const { last_status: _status, last_error: _error, next_attempt_at: _next, ...kept } = delivery;
  const logged: Delivery = {
    ...kept,
    attempts,
    last_attempt_at: at.toISOString(),
    ...(outcome.status !== undefined ? { last_status: outcome.status } : {}),
    ...(outcome.error !== undefined ? { last_error: outcome.error } : {}),
    ...(outcome.ok
      ? { status: 'delivered' as const, delivered_at: at.toISOString() }
      : next
        ? { status: 'pending' as const, next_attempt_at: next.toISOString() }
        : { status: 'failed' as const }),
  };
  // Another attempt at the same delivery (a sweep beside a replay) saved first: its entry
  // stands, and this one's receiver, which dedupes by webhook-id, saw the event twice at most.
  await deps.webhooks.saveDelivery(logged, delivery);
  // The endpoint as it is now: an attempt before this one may have moved its health.
  const current = (await deps.webhooks.getEndpoint(endpoint.id)) ?? endpoint;
  const health = afterDelivery(current, { at, ...outcome });
  if (
    health.state !== current.state ||
    health.failing_since !== current.failing_since ||
    health.disabled_reason !== current.disabled_reason
  ) {
    const { failing_since: _since, disabled_reason: _reason, ...rest } = current;
    await deps.webhooks.saveEndpoint({ ...rest, ...health });
  }
  return logged.status;
}
