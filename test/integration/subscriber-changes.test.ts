/**
 * What committing a subscriber change (shared/operations/commit-change.ts) keeps on the record
 * and how it survives DynamoDB losing its answer: the date a subscriber became `C`, which the
 * campaign recheck and the unconfirmed expiry read; the activation still queued when a change
 * queues none; and a write whose answer never came, read back by its change id.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import { recheckRecipient } from '../../shared/domain/campaign/recipient.ts';
import { DependencyError, isNewsletterError } from '../../shared/domain/errors.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { freshAddresses, testDependencies } from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';
import { settling, streamWorker } from '../support/stream-worker.ts';

/** What the next subscriber write does: lands with its answer lost, or fails before landing. */
type Loss = 'landed' | 'not_landed';

let deps: ReturnType<typeof testDependencies>;
let store: DynamoStore;
/** The operations, each call followed by the stream's work. */
let newsletter: NewsletterOperations;
/** The same without the stream's work: mails stay queued until `settle`. */
let direct: NewsletterOperations;
let settle: () => Promise<unknown>;
let nextLoss: Loss | undefined;
const address = freshAddresses();
const PUBLIC = { trusted: false };

beforeEach(async () => {
  const fresh = await freshStore();
  store = fresh.store;
  nextLoss = undefined;
  // The SDK giving up after DynamoDB took the write, or before it did: a DependencyError both
  // times, which only reading the subscriber back tells apart.
  const losing =
    <A extends unknown[]>(write: (...args: A) => Promise<boolean>) =>
    async (...args: A): Promise<boolean> => {
      const loss = nextLoss;
      nextLoss = undefined;
      const lost = new DependencyError('dynamodb', { cause: new Error('socket timed out') });
      if (loss === 'not_landed') throw lost;
      const written = await write(...args);
      if (loss === 'landed') throw lost;
      return written;
    };
  const lossy = Object.assign(Object.create(fresh.store) as DynamoStore, {
    createSubscriber: losing(fresh.store.createSubscriber.bind(fresh.store)),
    replaceSubscriber: losing(fresh.store.replaceSubscriber.bind(fresh.store)),
  });
  deps = testDependencies(lossy);
  direct = createNewsletter(deps);
  settle = streamWorker(fresh.client, fresh.tableName, deps).settle;
  newsletter = settling(direct, settle);
});

const tokenOf = (url: string | undefined): string =>
  new URL(url ?? '').searchParams.get('token') ?? '';

describe('becoming confirmed is dated', () => {
  it('[campaign.recheck] a run started before the confirmation skips the person; a later change of a C does not move the date', async () => {
    const email = address('dated');
    await newsletter.subscribe({ email });
    const token = tokenOf(deps.mailer.of('activation', email)[0]?.confirmUrl);
    const startedBefore = deps.clock.now().toISOString();
    deps.clock.advance(60_000);
    expect(await newsletter.confirm_subscription({ token })).toBe('confirmed');
    deps.clock.advance(60_000);
    const startedBetween = deps.clock.now().toISOString();
    deps.clock.advance(60_000);
    await newsletter.subscribe({ email, name: 'Renamed' });

    const stored = await store.getSubscriber(email);
    expect(stored?.name).toBe('Renamed');
    const recheck = (startedAt: string) =>
      recheckRecipient(stored?.id ?? 0, stored, { lists: stored?.lists ?? [], startedAt });
    expect(recheck(startedBefore)).toEqual({ send: false, reason: 'confirmed_after_start' });
    expect(recheck(startedBetween)).toEqual({ send: true });
  });

  it('[subscribe.expiry-asked-only] an unasked S that a trusted call changed still starts to expire with its first activation', async () => {
    const email = address('unasked');
    await newsletter.subscribe({ email, send_emails: false });
    await newsletter.subscribe({ email, name: 'Changed', send_emails: false });
    expect((await store.getSubscriber(email))?.expires_at).toBeUndefined();
    deps.clock.advance(60_000);
    await newsletter.subscribe({ email }, PUBLIC);

    expect(deps.mailer.of('activation', email)).toHaveLength(1);
    const days = deps.current.settings.unconfirmed_expiry_days;
    expect((await store.getSubscriber(email))?.expires_at).toBe(
      Math.floor(deps.clock.now().getTime() / 1000) + days * 86_400,
    );
  });
});

describe('the queued activation', () => {
  it('[mail.outbox-recheck] stays the newest through a change that queues none, and goes out', async () => {
    const email = address('queued');
    await direct.subscribe({ email });
    // Inside the cooldown: the fields change, no second activation is queued.
    await direct.subscribe({ email, name: 'Ada' });
    await settle();
    expect(deps.mailer.of('activation', email).map((mail) => mail.subscriber.name)).toEqual([
      'Ada',
    ]);
  });
});

describe('a write whose answer was lost', () => {
  it('[subscribe.lost-answer] that landed: the subscribe and the confirmation answer as if it had come, mails and counts once', async () => {
    const email = address('landed');
    nextLoss = 'landed';
    const subscribed = await newsletter.subscribe({ email });
    expect(subscribed).toMatchObject({ email, status: 'S' });
    expect(deps.mailer.of('activation', email)).toHaveLength(1);
    expect(deps.metrics.counts.Subscriptions).toBe(1);

    nextLoss = 'landed';
    const token = tokenOf(deps.mailer.of('activation', email)[0]?.confirmUrl);
    expect(await newsletter.confirm_subscription({ token })).toBe('confirmed');
    expect(deps.mailer.of('welcome', email)).toHaveLength(1);
    expect(deps.metrics.counts.Confirmations).toBe(1);
    expect(nextLoss).toBeUndefined();
  });

  it('[subscribe.lost-answer] that did not land: the call answers 503 and nothing is stored or mailed', async () => {
    const email = address('lost');
    nextLoss = 'not_landed';
    const refused = await newsletter.subscribe({ email });
    expect(isNewsletterError(refused) && refused).toMatchObject({
      code: 'unavailable',
      status: 503,
    });
    expect(await store.getSubscriber(email)).toBeUndefined();
    expect(deps.mailer.sent).toEqual([]);
  });
});
