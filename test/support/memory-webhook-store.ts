import type { Delivery, WebhookStore } from '../../shared/adapters/webhooks/webhook-ports.ts';
import type { WebhookEndpoint } from '../../shared/domain/webhooks/webhook-endpoint.ts';

/** The webhook store's contract in memory, for the delivery rules' tests. */
export class MemoryWebhookStore implements WebhookStore {
  readonly endpoints = new Map<string, WebhookEndpoint>();
  readonly deliveries = new Map<string, Delivery>();

  async listEndpoints(): Promise<readonly WebhookEndpoint[]> {
    return [...this.endpoints.values()];
  }

  async getEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    return this.endpoints.get(id);
  }

  async saveEndpoint(endpoint: WebhookEndpoint): Promise<void> {
    this.endpoints.set(endpoint.id, endpoint);
  }

  async deleteEndpoint(id: string): Promise<void> {
    this.endpoints.delete(id);
    for (const [key, delivery] of this.deliveries)
      if (delivery.endpoint_id === id) this.deliveries.delete(key);
  }

  async addDelivery(delivery: Delivery): Promise<boolean> {
    const key = `${delivery.endpoint_id} ${delivery.event_id}`;
    if (this.deliveries.has(key)) return false;
    this.deliveries.set(key, delivery);
    return true;
  }

  async saveDelivery(delivery: Delivery, before: Delivery): Promise<boolean> {
    const key = `${delivery.endpoint_id} ${delivery.event_id}`;
    if (this.deliveries.get(key)?.attempts !== before.attempts) return false;
    this.deliveries.set(key, delivery);
    return true;
  }

  async getDelivery(
    endpointId: string,
    _eventTime: string,
    eventId: string,
  ): Promise<Delivery | undefined> {
    return this.deliveries.get(`${endpointId} ${eventId}`);
  }

  async deliveriesOf(
    endpointId: string,
    limit: number,
    since?: Date,
  ): Promise<readonly Delivery[]> {
    return [...this.deliveries.values()]
      .filter(
        (delivery) =>
          delivery.endpoint_id === endpointId &&
          (since === undefined || delivery.event_time >= since.toISOString()),
      )
      .sort(
        (a, b) => b.event_time.localeCompare(a.event_time) || b.event_id.localeCompare(a.event_id),
      )
      .slice(0, limit);
  }

  async dueDeliveries(now: Date): Promise<readonly Delivery[]> {
    return [...this.deliveries.values()]
      .filter(
        (delivery) =>
          delivery.status === 'pending' &&
          delivery.next_attempt_at !== undefined &&
          Date.parse(delivery.next_attempt_at) <= now.getTime(),
      )
      .sort((a, b) => (a.next_attempt_at ?? '').localeCompare(b.next_attempt_at ?? ''));
  }
}
