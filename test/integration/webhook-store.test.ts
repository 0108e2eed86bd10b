/**
 * The webhook store in the table (docs/storage.md, "Webhooks") against DynamoDB Local: an
 * endpoint's log in event-time order, once per event, and the due items the retry sweep reads,
 * moved with every attempt. Time is the operations' clock, simulated.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoRequests } from '../../shared/adapters/store/dynamo-requests.ts';
import { DynamoWebhookStore } from '../../shared/adapters/store/dynamo-webhook-store.ts';
import type { Delivery } from '../../shared/adapters/webhooks/webhook-ports.ts';
import type { NewsletterEvent } from '../../shared/domain/events/event-catalogue.ts';
import type { WebhookEndpoint } from '../../shared/domain/webhooks/webhook-endpoint.ts';
import {
  type DeliveryDeps,
  deliverEvents,
  retryDue,
} from '../../shared/operations/webhooks/deliver-webhooks.ts';
import { freshStore } from '../support/local-dynamo.ts';

let store: DynamoWebhookStore;

beforeEach(async () => {
  const fresh = await freshStore();
  store = new DynamoWebhookStore(new DynamoRequests(fresh.client), fresh.tableName);
});

const T0 = new Date('2026-11-29T00:00:00.000Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

const hook = (id: string): WebhookEndpoint => ({
  id,
  url: `https://hooks.example.com/${id}`,
  event_types: [],
  secrets: [
    { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, created: T0.toISOString() },
  ],
  state: 'enabled',
  created: T0.toISOString(),
});

const delivery = (eventId: string, eventSecond: number, next: Date): Delivery => ({
  endpoint_id: 'whe_a',
  event_id: eventId,
  event_time: at(eventSecond).toISOString(),
  event_type: 'subscriber.confirmed',
  body: '{}',
  status: 'pending',
  attempts: 0,
  created: T0.toISOString(),
  next_attempt_at: next.toISOString(),
});

describe('webhook endpoints in the table', () => {
  it('are listed, read and removed', async () => {
    await store.saveEndpoint(hook('whe_a'));
    await store.saveEndpoint({ ...hook('whe_b'), event_types: ['subscriber.confirmed'] });

    expect((await store.listEndpoints()).map((each) => each.id).sort()).toEqual(['whe_a', 'whe_b']);
    expect(await store.getEndpoint('whe_b')).toEqual({
      ...hook('whe_b'),
      event_types: ['subscriber.confirmed'],
    });
    await store.deleteEndpoint('whe_a');
    expect(await store.getEndpoint('whe_a')).toBeUndefined();
  });
});

describe('[webhooks.log] an endpoint delivery log in the table', () => {
  it('takes a delivery once per event, and its due item says when', async () => {
    const first = delivery('evt_1', 0, at(60));
    expect(await store.addDelivery(first)).toBe(true);
    expect(await store.addDelivery({ ...first, created: at(5).toISOString() })).toBe(false);

    expect(await store.getDelivery('whe_a', first.event_time, 'evt_1')).toEqual(first);
    expect(await store.dueDeliveries(at(59))).toEqual([]);
    expect(await store.dueDeliveries(at(60))).toEqual([first]);
  });

  it('moves the due item with each attempt and drops it once delivered', async () => {
    const first = delivery('evt_1', 0, at(60));
    await store.addDelivery(first);
    const retried: Delivery = { ...first, attempts: 1, next_attempt_at: at(300).toISOString() };

    await store.saveDelivery(retried, first);
    expect(await store.dueDeliveries(at(299))).toEqual([]);
    expect(await store.dueDeliveries(at(300))).toEqual([retried]);

    const { next_attempt_at: _next, ...rest } = retried;
    const delivered: Delivery = { ...rest, status: 'delivered', attempts: 2 };
    await store.saveDelivery(delivered, retried);
    expect(await store.dueDeliveries(at(86_400))).toEqual([]);
    expect(await store.getDelivery('whe_a', first.event_time, 'evt_1')).toEqual(delivered);
  });

  it('saves an attempt only over the delivery as it was read: a concurrent one loses', async () => {
    const first = delivery('evt_1', 0, at(60));
    await store.addDelivery(first);
    const bySweep: Delivery = { ...first, attempts: 1, next_attempt_at: at(300).toISOString() };
    const { next_attempt_at: _next, ...rest } = first;
    const byReplay: Delivery = { ...rest, status: 'delivered', attempts: 1 };

    expect(await store.saveDelivery(bySweep, first)).toBe(true);
    expect(await store.saveDelivery(byReplay, first)).toBe(false);
    expect(await store.getDelivery('whe_a', first.event_time, 'evt_1')).toEqual(bySweep);
    // One due item, the sweep's: the loser neither deleted it nor added its own.
    expect(await store.dueDeliveries(at(86_400))).toEqual([bySweep]);
  });

  it('reads newest event first, at most a limit, since a time', async () => {
    for (const [id, second] of [
      ['evt_1', 10],
      ['evt_2', 30],
      ['evt_3', 20],
    ] as const)
      await store.addDelivery(delivery(id, second, at(60)));

    const ids = (list: readonly Delivery[]) => list.map((each) => each.event_id);
    expect(ids(await store.deliveriesOf('whe_a', 10))).toEqual(['evt_2', 'evt_3', 'evt_1']);
    expect(ids(await store.deliveriesOf('whe_a', 2))).toEqual(['evt_2', 'evt_3']);
    expect(ids(await store.deliveriesOf('whe_a', 10, at(20)))).toEqual(['evt_2', 'evt_3']);
    expect(await store.deliveriesOf('whe_b', 10)).toEqual([]);
  });
});

describe('[webhooks.retries] delivery over the table', () => {
  it('a receiver down for an hour, then back: each event delivered once, in the log', async () => {
    await store.saveEndpoint(hook('whe_a'));
    let now = T0;
    let up = false;
    const sent: string[] = [];
    const deps: DeliveryDeps = {
      webhooks: store,
      now: () => now,
      send: async (_url, headers) => {
        if (!up) return { ok: false, error: 'connect ECONNREFUSED' };
        sent.push(headers['webhook-id']);
        return { ok: true, status: 204 };
      },
    };
    const events: NewsletterEvent[] = [1, 2].map((n) => ({
      id: `evt_${n}`,
      type: 'subscriber.unsubscribed',
      subscriber_id: n,
      time: T0.toISOString(),
      sequence: String(n).padStart(40, '0'),
      data: { email: `s${n}@example.com`, how: 'api' },
    }));
    await deliverEvents(deps, events);
    // A sweep every 5 minutes for an hour, then for two more with the receiver back.
    for (let second = 300; second <= 3 * 3_600; second += 300) {
      if (second > 3_600) up = true;
      now = at(second);
      await retryDue(deps);
    }

    expect(sent.sort()).toEqual(['evt_1', 'evt_2']);
    const log = await store.deliveriesOf('whe_a', 10);
    expect(log.map((each) => [each.status, each.attempts])).toEqual([
      ['delivered', 5],
      ['delivered', 5],
    ]);
    expect(await store.dueDeliveries(at(86_400))).toEqual([]);
  });
});
