/**
 * Webhook delivery ([webhooks.delivery], [webhooks.retries], [webhooks.log], [webhooks.replay],
 * [webhooks.disable]) against a real receiver on loopback that verifies every POST with the
 * `standardwebhooks` package, as an integrator's would. Time is simulated: only `Date` is
 * faked, so the signatures' timestamps and the receiver's check of them move together, and an
 * hour or a day passes in a few calls.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sendWebhook } from '../../../shared/adapters/webhooks/webhook-sender.ts';
import type { NewsletterEvent } from '../../../shared/domain/events/event-catalogue.ts';
import type { WebhookEndpoint } from '../../../shared/domain/webhooks/webhook-endpoint.ts';
import { newSigningSecret } from '../../../shared/domain/webhooks/webhook-signing.ts';
import {
  type DeliveryDeps,
  deliverEvents,
  replayDeliveries,
  retryDue,
} from '../../../shared/operations/webhooks/deliver-webhooks.ts';
import { MemoryWebhookStore } from '../../support/memory-webhook-store.ts';

type Mode = 'up' | 'slow' | 'error' | 'down';

/** The receiver: per path, the webhook-ids it accepted (verified, answered 2xx). */
let receiver: Server;
let base: string;
let mode: Mode = 'up';
/** The sender's patience: short while the receiver is slow, so a test takes no longer. */
let timeoutMs = 2_000;
const secrets = new Map<string, string>();
const accepted = new Map<string, string[]>();
const unverified: string[] = [];

function receive(incoming: IncomingMessage, body: string): number {
  const path = incoming.url ?? '';
  const secret = secrets.get(path);
  try {
    if (!secret) throw new Error('no endpoint');
    new Webhook(secret).verify(body, incoming.headers as Record<string, string>);
  } catch (error) {
    unverified.push(`${path}: ${(error as Error).message}`);
    return 400;
  }
  accepted.set(path, [...(accepted.get(path) ?? []), String(incoming.headers['webhook-id'])]);
  return 204;
}

beforeAll(async () => {
  receiver = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      if (mode === 'down') return incoming.socket.destroy();
      if (mode === 'error') return response.writeHead(503).end('try later');
      const status = receive(incoming, Buffer.concat(chunks).toString('utf8'));
      // Slow: the answer comes after the sender gave up, so the attempt fails though the
      // receiver took the event; the retry carries the same webhook-id, and it drops that.
      if (mode === 'slow') incoming.socket.once('close', () => response.destroy());
      else response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

const START = new Date('2026-11-29T00:00:00.000Z');
let store: MemoryWebhookStore;
let deps: DeliveryDeps;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: START });
  mode = 'up';
  timeoutMs = 2_000;
  accepted.clear();
  unverified.length = 0;
  store = new MemoryWebhookStore();
  deps = {
    webhooks: store,
    send: (url, headers, body) =>
      sendWebhook(url, headers, body, { allowLocalHttp: true, timeoutMs }),
    now: () => new Date(),
  };
});

afterEach(() => {
  vi.useRealTimers();
});

/** Registers an endpoint at `path` of the receiver, which learns its secret. */
async function endpoint(
  path: string,
  event_types: WebhookEndpoint['event_types'] = [],
): Promise<WebhookEndpoint> {
  const secret = newSigningSecret();
  secrets.set(path, secret);
  const registered: WebhookEndpoint = {
    id: `whe_${path.slice(1)}`,
    url: `${base}${path}`,
    event_types,
    secrets: [{ secret, created: START.toISOString() }],
    state: 'enabled',
    created: START.toISOString(),
  };
  await store.saveEndpoint(registered);
  return registered;
}

let serial = 0;
/** A `subscriber.confirmed` or `subscriber.unsubscribed` event with an id of its own. */
function event(type: 'subscriber.confirmed' | 'subscriber.unsubscribed'): NewsletterEvent {
  serial += 1;
  const common = {
    id: `evt_${serial}`,
    time: new Date().toISOString(),
    sequence: String(serial).padStart(40, '0'),
    subscriber_id: serial,
  };
  return type === 'subscriber.confirmed'
    ? { ...common, type, data: { email: `s${serial}@example.com`, lists: [1], how: 'link' } }
    : { ...common, type, data: { email: `s${serial}@example.com`, how: 'one_click' } };
}

/** Moves simulated time on by `seconds`, a retry sweep every `every` seconds (one a minute). */
async function pass(seconds: number, every = 60): Promise<void> {
  for (let gone = 0; gone < seconds; gone += every) {
    vi.setSystemTime(new Date(Date.now() + every * 1000));
    await retryDue(deps);
  }
}

describe('[webhooks.delivery] each matching event, signed, once per endpoint', () => {
  it('reaches every endpoint that takes its type, verified by standardwebhooks', async () => {
    const all = await endpoint('/all');
    const confirmations = await endpoint('/confirmed', ['subscriber.confirmed']);
    const events = [event('subscriber.confirmed'), event('subscriber.unsubscribed')];

    const round = await deliverEvents(deps, events);

    expect(round).toEqual({ delivered: 3, failed: 0, repeated: 0 });
    expect(unverified).toEqual([]);
    expect(accepted.get('/all')).toEqual(events.map((each) => each.id));
    expect(accepted.get('/confirmed')).toEqual([events[0]?.id]);
    const log = await store.deliveriesOf(all.id, 10);
    expect(log.map((each) => [each.event_id, each.status, each.attempts])).toEqual(
      expect.arrayContaining([
        [events[0]?.id, 'delivered', 1],
        [events[1]?.id, 'delivered', 1],
      ]),
    );
    expect((await store.deliveriesOf(confirmations.id, 10)).length).toBe(1);
  });

  it('an event handed over again (the bus is at least once) is not sent again', async () => {
    await endpoint('/all');
    const events = [event('subscriber.confirmed')];
    await deliverEvents(deps, events);

    const again = await deliverEvents(deps, events);

    expect(again).toEqual({ delivered: 0, failed: 0, repeated: 1 });
    expect(accepted.get('/all')).toEqual([events[0]?.id]);
  });
});

describe('[webhooks.retries] a receiver down, slow or failing, then back', () => {
  it.each(['down', 'error', 'slow'] as const)(
    '%s for an hour of simulated time: every event delivered once, in the log',
    async (fault) => {
      const hook = await endpoint('/all');
      mode = fault;
      if (fault === 'slow') timeoutMs = 100;
      const events = [
        event('subscriber.confirmed'),
        event('subscriber.unsubscribed'),
        event('subscriber.confirmed'),
      ];
      expect(await deliverEvents(deps, events)).toEqual({ delivered: 0, failed: 3, repeated: 0 });
      await pass(3_600);
      const during = await store.deliveriesOf(hook.id, 10);
      for (const delivery of during) {
        expect(delivery.status).toBe('pending');
        // The first attempt and the retries at 5 s, 5 min and 30 min.
        expect(delivery.attempts).toBe(4);
        expect(delivery.last_error).toBeTruthy();
        if (fault === 'error') expect(delivery.last_status).toBe(503);
      }
      expect((await store.getEndpoint(hook.id))?.failing_since).toBe(START.toISOString());

      mode = 'up';
      timeoutMs = 2_000;
      // The next retry is 2 h after the fourth attempt.
      await pass(2 * 3_600);

      const ids = events.map((each) => each.id).sort();
      if (fault === 'slow')
        // Taken at every attempt, answered in time at the last: the same id each time.
        expect([...new Set(accepted.get('/all'))].sort()).toEqual(ids);
      else expect([...(accepted.get('/all') ?? [])].sort()).toEqual(ids);
      expect(unverified).toEqual([]);
      const after = await store.deliveriesOf(hook.id, 10);
      expect(after.map((each) => [each.status, each.attempts])).toEqual([
        ['delivered', 5],
        ['delivered', 5],
        ['delivered', 5],
      ]);
      const health = await store.getEndpoint(hook.id);
      expect(health?.state).toBe('enabled');
      expect(health?.failing_since).toBeUndefined();
    },
  );

  it('[webhooks.disable] failing for a day disables the endpoint, saying why; its events wait', async () => {
    const hook = await endpoint('/all');
    mode = 'error';
    await deliverEvents(deps, [event('subscriber.confirmed')]);

    // Retries at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: the first past a day, at 27.7 h,
    // disables it.
    await pass(28 * 3_600, 300);

    const disabled = await store.getEndpoint(hook.id);
    expect(disabled?.state).toBe('disabled');
    expect(disabled?.disabled_reason).toMatch(/every delivery failed for a day .*HTTP 503/);
    // Disabled: a new event is not delivered, and what was due waits.
    mode = 'up';
    expect(await deliverEvents(deps, [event('subscriber.unsubscribed')])).toEqual({
      delivered: 0,
      failed: 0,
      repeated: 0,
    });
    await pass(3 * 3_600, 300);
    expect(accepted.get('/all')).toBeUndefined();
  });
});

describe('[webhooks.replay] an admin sends logged deliveries again', () => {
  it('with the same webhook-id, failed or delivered', async () => {
    const hook = await endpoint('/all');
    const events = [event('subscriber.confirmed'), event('subscriber.unsubscribed')];
    await deliverEvents(deps, events);

    const replayed = await replayDeliveries(
      deps,
      hook.id,
      { eventIds: [events[1]?.id ?? ''] },
      100,
    );

    expect(replayed).toEqual({ delivered: 1, failed: 0, repeated: 0 });
    expect(accepted.get('/all')).toEqual([events[0]?.id, events[1]?.id, events[1]?.id]);
    expect(
      (await store.getDelivery(hook.id, events[1]?.time ?? '', events[1]?.id ?? ''))?.attempts,
    ).toBe(2);
    expect(await replayDeliveries(deps, 'whe_unknown', {}, 100)).toBeUndefined();
  });
});
