import { beforeEach, describe, expect, it } from 'vitest';
import type { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { hashToken } from '../../shared/domain/tokens.ts';
import type { NewsletterOperations } from '../../shared/newsletter.ts';
import { settleSubscribeRequest } from '../../shared/operations/subscribe.ts';
import { freshAddresses, type testDependencies } from '../support/fixtures.ts';
import { settledService } from '../support/settled-service.ts';

/**
 * `unsubscribe` and what it writes, for what the mutation round of issue 23 found unchecked:
 * the time and metric of a leave, an address already `U`, and the activation link it retires.
 */

let deps: ReturnType<typeof testDependencies>;
let store: DynamoStore;
let newsletter: NewsletterOperations;
let direct: NewsletterOperations;
let scanAll: () => Promise<Record<string, unknown>[]>;
const address = freshAddresses();
const PUBLIC = { trusted: false };

beforeEach(async () => {
  ({ store, deps, newsletter, direct, scanAll } = await settledService());
});

const tokenOf = (url: string | undefined): string =>
  new URL(url ?? '').searchParams.get('token') ?? '';

const tokenKeys = async (): Promise<string[]> =>
  (await scanAll()).map((item) => String(item.pk)).filter((pk) => pk.startsWith('TOKEN#'));

const tokenItem = async (raw: string) =>
  (await scanAll()).find((item) => item.pk === `TOKEN#${hashToken(raw)}`);

describe('[unsubscribe.blocked-untouched] unsubscribe', () => {
  it('[ops.metrics] makes a C a U at the time of the call and counts Unsubscriptions once; unsubscribing the U again writes and counts nothing', async () => {
    const email = address('leave');
    await newsletter.add_subscriber({ email });
    deps.clock.advance(60_000);
    const left = (await newsletter.unsubscribe({ email })) as Subscriber;
    expect(left.status).toBe('U');
    expect(left.updated).toBe(deps.clock.current.toISOString());
    expect(deps.metrics.counts.Unsubscriptions).toBe(1);
    const before = await store.getSubscriber(email);
    deps.clock.advance(60_000);
    const again = await newsletter.unsubscribe({ email });
    expect(isNewsletterError(again) ? again : again.status).toBe('U');
    expect(await store.getSubscriber(email)).toEqual(before);
    expect(deps.metrics.counts.Unsubscriptions).toBe(1);
  });

  it('retires a pending activation link: its token item is deleted and the link no longer confirms', async () => {
    const email = address('pending');
    await newsletter.subscribe({ email }, PUBLIC);
    const token = tokenOf(deps.mailer.of('activation', email)[0]?.confirmUrl);
    expect(await tokenKeys()).toEqual([`TOKEN#${hashToken(token)}`]);
    await newsletter.unsubscribe({ email });
    const record = await store.getSubscriber(email);
    expect(record?.status).toBe('U');
    expect(Object.keys(record?.tokens ?? {})).not.toContain(hashToken(token));
    // Its token item is deleted, and nothing is written in its place.
    expect(await tokenKeys()).toEqual([]);
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(false);
    expect(await newsletter.confirm_subscription({ token })).toBe('invalid');
    expect(await store.getSubscriber(email)).toEqual(record);
    expect(deps.metrics.counts.Unsubscriptions).toBe(1);
  });

  it('retires the activation a keyless call sent to a U asking it back, without counting a second leave', async () => {
    const email = address('asked-back');
    await newsletter.add_subscriber({ email });
    await newsletter.unsubscribe({ email });
    expect(deps.metrics.counts.Unsubscriptions).toBe(1);
    await newsletter.subscribe({ email }, PUBLIC);
    const token = tokenOf(deps.mailer.of('activation', email)[0]?.confirmUrl);
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(true);
    const asked = await store.getSubscriber(email);
    deps.clock.advance(60_000);
    await newsletter.unsubscribe({ email });
    const after = await store.getSubscriber(email);
    expect(after?.status).toBe('U');
    // Nothing a caller sees moved: the person had not come back.
    expect(after?.updated).toBe(asked?.updated);
    expect(await tokenItem(token)).toBeUndefined();
    expect(await newsletter.confirm_subscription({ token })).toBe('invalid');
    expect((await store.getSubscriber(email))?.status).toBe('U');
    expect(deps.metrics.counts.Unsubscriptions).toBe(1);
  });

  it('retires such an activation link also on a record written before activations were tracked', async () => {
    const email = address('asked-back-before');
    await newsletter.add_subscriber({ email });
    await newsletter.unsubscribe({ email });
    await newsletter.subscribe({ email }, PUBLIC);
    const token = tokenOf(deps.mailer.of('activation', email)[0]?.confirmUrl);
    const asked = await store.getSubscriber(email);
    if (!asked) throw new Error('the subscriber was not stored');
    // The link went out, as a deployment before `activation_outbox` wrote it: the token only.
    const { activation_outbox: _tracked, ...untracked } = asked;
    expect(untracked.confirm_token).toBeDefined();
    expect(await store.replaceSubscriber(untracked, asked)).toBe(true);
    await newsletter.unsubscribe({ email });
    expect(await tokenItem(token)).toBeUndefined();
    expect(await newsletter.confirm_subscription({ token })).toBe('invalid');
    expect((await store.getSubscriber(email))?.status).toBe('U');
  });
});

describe('[unsubscribe.clears-pending] unsubscribe', () => {
  it('[unsubscribe.blocked-untouched] withdraws the activation a keyless call queued for a U that unsubscribes before it goes out', async () => {
    const email = address('asked-back-queued');
    await newsletter.add_subscriber({ email });
    await newsletter.unsubscribe({ email });
    // Asked back: the keyless request is worked off and its activation queued, but the mailer
    // has not taken the mail yet.
    await direct.subscribe({ email }, PUBLIC);
    const [request] = (await scanAll())
      .map((item) => String(item.pk))
      .filter((pk) => pk.startsWith('REQUEST#'));
    await settleSubscribeRequest(deps, String(request).slice('REQUEST#'.length));
    expect((await store.getSubscriber(email))?.activation_outbox).toBeDefined();
    // The stream is worked off after this call: the mailer then finds nothing wanted.
    await newsletter.unsubscribe({ email });
    expect(deps.mailer.of('activation', email)).toEqual([]);
    const after = await store.getSubscriber(email);
    expect(after?.status).toBe('U');
    expect(after?.activation_outbox).toBeUndefined();
    expect(deps.metrics.counts.Unsubscriptions).toBe(1);
  });
});

describe('[unsubscribe.versioned] unsubscribe', () => {
  it('refuses afterwards a write from a read taken before it, even one two changes old', async () => {
    const email = address('stale');
    await newsletter.add_subscriber({ email });
    const stale = await store.getSubscriber(email);
    const renamed = await newsletter.subscribe({ email, name: 'Renamed' }, { trusted: true });
    expect(renamed).toMatchObject({ name: 'Renamed' });
    await newsletter.unsubscribe({ email });
    const left = await store.getSubscriber(email);
    if (!stale || !left) throw new Error('the subscriber was not stored');
    expect(left).toMatchObject({ status: 'U', name: 'Renamed' });
    // A decision made on the first read, written as if nothing had happened since.
    expect(await store.replaceSubscriber({ ...stale, status: 'C' }, stale)).toBe(false);
    expect(await store.getSubscriber(email)).toEqual(left);
  });
});

describe('[params.email] unsubscribe', () => {
  it('refuses a malformed address as a 400 naming the parameter, and an unknown one is a 404', async () => {
    const bad = await newsletter.unsubscribe({ email: 'not-an-address' });
    expect(isNewsletterError(bad) && bad).toMatchObject({ code: 'invalid_email', status: 400 });
    expect(isNewsletterError(bad) && bad.message).toMatch(/^email/);
    const missing = await newsletter.unsubscribe({});
    expect(isNewsletterError(missing) && missing.status).toBe(400);
    const unknown = await newsletter.unsubscribe({ email: address('nobody') });
    expect(isNewsletterError(unknown) && unknown).toMatchObject({
      code: 'not_found',
      status: 404,
    });
  });
});
