import type { EventType } from '../../domain/events/event-catalogue.ts';
import type { WebhookEndpoint } from '../../domain/webhooks/webhook-endpoint.ts';
import type { WebhookHeaders } from '../../domain/webhooks/webhook-signing.ts';
import type { AttemptOutcome } from './webhook-sender.ts';

/** One event's delivery to one endpoint: the delivery log's entry ([webhooks.log]). */
export interface Delivery {
  readonly endpoint_id: string;
  /** The event's id, which is also the delivery's `webhook-id`. */
  readonly event_id: string;
  /** The event's own time: with its id, where the entry stands in the log (oldest first). */
  readonly event_time: string;
  readonly event_type: EventType;
  /** The POSTed body: the event as published, byte for byte on every attempt. */
  readonly body: string;
  /** `pending` until a 2xx (`delivered`) or until the retries run out (`failed`). */
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly created: string;
  readonly last_attempt_at?: string;
  /** The receiver's HTTP status at the last attempt, when it answered. */
  readonly last_status?: number;
  readonly last_error?: string;
  /** When a pending delivery is tried next. */
  readonly next_attempt_at?: string;
  readonly delivered_at?: string;
}

/** Where endpoints and their delivery logs are kept (docs/storage.md, "Webhooks"). */
export interface WebhookStore {
  listEndpoints(): Promise<readonly WebhookEndpoint[]>;
  getEndpoint(id: string): Promise<WebhookEndpoint | undefined>;
  /** Writes the endpoint whole. */
  saveEndpoint(endpoint: WebhookEndpoint): Promise<void>;
  /** Removes the endpoint and its log. */
  deleteEndpoint(id: string): Promise<void>;
  /** Adds a delivery unless its endpoint has one for the event already; false then. */
  addDelivery(delivery: Delivery): Promise<boolean>;
  /**
   * Writes a delivery whole after an attempt; `before` is it as it was read. False, writing
   * nothing, when another attempt saved it since (its attempts count moved).
   */
  saveDelivery(delivery: Delivery, before: Delivery): Promise<boolean>;
  getDelivery(
    endpointId: string,
    eventTime: string,
    eventId: string,
  ): Promise<Delivery | undefined>;
  /** An endpoint's log, newest event first, at most `limit`, of events since `since` if given. */
  deliveriesOf(endpointId: string, limit: number, since?: Date): Promise<readonly Delivery[]>;
  /** Pending deliveries whose next attempt is at or before `now`, oldest first. */
  dueDeliveries(now: Date): Promise<readonly Delivery[]>;
}

/** POSTs one signed delivery (shared/adapters/webhooks/webhook-sender.ts). */
export type WebhookSend = (
  url: URL,
  headers: WebhookHeaders,
  body: string,
) => Promise<AttemptOutcome>;
