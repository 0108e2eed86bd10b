import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import { MAX_ENDPOINTS } from '../../../shared/domain/webhooks/webhook-endpoint.ts';
import { signDelivery } from '../../../shared/domain/webhooks/webhook-signing.ts';
import {
  listEndpoints,
  type ManageDeps,
  readDeliveryLog,
  registerEndpoint,
  removeEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../../shared/operations/webhooks/manage-webhooks.ts';
import { MemoryWebhookStore } from '../../support/memory-webhook-store.ts';

let store: MemoryWebhookStore;
let now: Date;
let deps: ManageDeps;

beforeEach(() => {
  store = new MemoryWebhookStore();
  now = new Date('2026-11-29T00:00:00.000Z');
  // The receiver's check of a signature's timestamp reads Date: it sees the tests' time.
  vi.useFakeTimers({ toFake: ['Date'], now });
  deps = { webhooks: store, now: () => now, urlPolicy: { allowLocalHttp: false } };
});

afterEach(() => {
  vi.useRealTimers();
});

const url = 'https://hooks.example.com/in';

describe('[webhooks.endpoints] an admin manages endpoints', () => {
  it('registers one, its secret shown once and never in a read', async () => {
    const registered = await registerEndpoint(deps, {
      url,
      event_types: ['subscriber.confirmed'],
    });
    if (isNewsletterError(registered)) throw new Error(registered.message);

    expect(registered).toMatchObject({
      url,
      event_types: ['subscriber.confirmed'],
      state: 'enabled',
    });
    expect(registered.id).toMatch(/^whe_[0-9a-f]{16}$/);
    expect(registered.secret).toMatch(/^whsec_/);
    const listed = await listEndpoints(deps);
    expect(listed.map((each) => each.id)).toEqual([registered.id]);
    expect(JSON.stringify(listed)).not.toContain(registered.secret);
  });

  it('refuses a bad registration and the one past the limit, storing nothing', async () => {
    expect(await registerEndpoint(deps, { url: 'http://hooks.example.com/in' })).toMatchObject({
      code: 'invalid_parameter',
    });
    for (let n = 0; n < MAX_ENDPOINTS; n += 1) await registerEndpoint(deps, { url });
    expect(await registerEndpoint(deps, { url })).toMatchObject({ code: 'invalid_parameter' });
    expect((await listEndpoints(deps)).length).toBe(MAX_ENDPOINTS);
  });

  it('changes types, disables and enables again (clearing the failure), removes', async () => {
    const registered = await registerEndpoint(deps, { url });
    if (isNewsletterError(registered)) throw new Error(registered.message);
    const stored = await store.getEndpoint(registered.id);
    if (!stored) throw new Error('not stored');
    await store.saveEndpoint({
      ...stored,
      state: 'disabled',
      failing_since: '2026-11-27T00:00:00.000Z',
      disabled_reason: 'every delivery failed for a day',
    });

    const enabled = await updateEndpoint(deps, registered.id, {
      state: 'enabled',
      event_types: ['subscriber.deleted'],
    });
    expect(enabled).toMatchObject({ state: 'enabled', event_types: ['subscriber.deleted'] });
    expect(enabled).not.toHaveProperty('failing_since');
    expect(enabled).not.toHaveProperty('disabled_reason');
    expect(await updateEndpoint(deps, registered.id, { state: 'paused' })).toMatchObject({
      code: 'invalid_parameter',
    });
    expect(await removeEndpoint(deps, registered.id)).toBe('Deleted');
    expect(await removeEndpoint(deps, registered.id)).toMatchObject({ code: 'not_found' });
    expect(await readDeliveryLog(deps, registered.id)).toMatchObject({ code: 'not_found' });
  });

  it('[webhooks.rotation] rotates: both secrets sign for a day, then the new one only', async () => {
    const registered = await registerEndpoint(deps, { url });
    if (isNewsletterError(registered)) throw new Error(registered.message);
    const rotated = await rotateEndpointSecret(deps, registered.id);
    if (isNewsletterError(rotated)) throw new Error(rotated.message);
    const stored = await store.getEndpoint(registered.id);
    const body = '{"type":"subscriber.confirmed"}';
    const signed = (at: Date) =>
      signDelivery({ id: 'evt_1', body, at }, stored?.secrets ?? [])['webhook-signature'];

    expect(signed(now).split(' ')).toHaveLength(2);
    expect(signed(new Date(now.getTime() + 86_401_000)).split(' ')).toHaveLength(1);
    const headers = signDelivery({ id: 'evt_1', body, at: now }, stored?.secrets ?? []);
    for (const secret of [registered.secret, rotated.secret])
      expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });
});
