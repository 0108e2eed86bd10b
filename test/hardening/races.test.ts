/**
 * Races on one address through the function class, over a real DynamoDB Local table. Every
 * store call and every mail send is handed to a fast-check scheduler, which releases their
 * results in a generated order: the interleavings are many, different each round, and
 * replayable from the seed. After each round the table must be consistent: at most one
 * subscriber per address, at most one activation mail per cooldown, no orphan token (every
 * `TOKEN#` item listed by an existing subscriber, and every listed token stored), no orphan
 * entry in the `recent` index. Storage design (docs/storage.md) and decisions part 4.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DueMail, MailPort } from '../../shared/adapters/mail/mail-port.ts';
import type { Store } from '../../shared/adapters/store/store-port.ts';
import { isNewsletterError, type NewsletterError } from '../../shared/domain/errors.ts';
import type { Settings } from '../../shared/domain/settings-schema.ts';
import { hashToken } from '../../shared/domain/tokens.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { type RecordingMailer, testDependencies } from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';
import { settling, streamWorker } from '../support/stream-worker.ts';
import { checkIntegrity, figure, type Item } from './support/harness.ts';

/** Rounds per interleaving (each a fresh address and a fresh generated schedule). */
const ROUNDS = 30;
// A round makes dozens of real DynamoDB Local calls in the generated order. 30 rounds take
// 5–25 s on an idle 2-core machine and several times that beside another test run; the
// verdict depends on the order the scheduler releases, never on the time taken.
vi.setConfig({ testTimeout: 180_000 });

let store: Store;
let db: DynamoDBDocumentClient;
let table: string;
let deps: ReturnType<typeof testDependencies>;
/** The function class over `deps`, or over the scheduler's wrapped dependencies in a round. */
let newsletter: NewsletterOperations;
let round = 0;
/** Every mail sent under the scheduler, with the addressee's stored status at that moment. */
const statusAtSend: { kind: DueMail['kind']; to: string; status: string | undefined }[] = [];

/** The function class over `deps`, followed by the stream's work after every call. */
const plain = (): NewsletterOperations =>
  settling(createNewsletter(deps), streamWorker(db, table, deps).settle);

beforeEach(async () => {
  // With its stream: the integrity checks include the counts kept from it.
  ({ store, client: db, tableName: table } = await freshStore(undefined, { stream: true }));
  deps = testDependencies(store);
  newsletter = plain();
});

/** Every store method and the mailer's send, with their results released by the scheduler. */
function scheduled(
  s: fc.Scheduler,
  real: Store,
  mailer: MailPort,
): { store: Store; mailer: MailPort } {
  const wrapped = new Proxy(real, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return s.scheduleFunction((...args: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).apply(target, args),
      );
    },
  });
  // The send is recorded with the subscriber's status at that moment, so a welcome that goes
  // out after the subscriber left can be told from one that went out before.
  const witnessed = async (mail: DueMail, settings: Settings): Promise<void> => {
    const status = mail.kind === 'admin' ? undefined : (await real.getSubscriber(mail.to))?.status;
    statusAtSend.push({ kind: mail.kind, to: mail.to, status });
    await mailer.send(mail, settings);
  };
  return { store: wrapped, mailer: { send: s.scheduleFunction(witnessed) } };
}

/** Runs `work` with the scheduler deciding the order, then restores the plain dependencies. */
async function interleaved<T>(s: fc.Scheduler, work: () => Promise<T>[]): Promise<T[]> {
  // The stream's work (requests settled, mails sent) runs under the scheduler too.
  const wrapped = { ...deps, ...scheduled(s, store, deps.mailer) };
  newsletter = settling(createNewsletter(wrapped), streamWorker(db, table, wrapped).settle);
  try {
    return await s.waitFor(Promise.all(work()));
  } finally {
    newsletter = plain();
    // Whatever the last calls queued goes out now, as the mailer would a moment later.
    await streamWorker(db, table, deps).settle();
  }
}

const tokenIn = (mail: DueMail | undefined): string => {
  const url = mail?.confirmUrl ?? mail?.unsubscribeUrl;
  const token = url ? new URL(url).searchParams.get('token') : null;
  if (!token) throw new Error('no token in the mail');
  return token;
};

const mailsTo = (mailer: RecordingMailer, kind: DueMail['kind'], email: string, from = 0) =>
  mailer.sent.slice(from).filter((mail) => mail.kind === kind && mail.subscriber.email === email);

const subscriberItem = (items: readonly Item[], email: string): Item | undefined =>
  items.find((item) => item.pk === `SUBSCRIBER#${email}`);

const tokenItems = (items: readonly Item[], email: string): Item[] =>
  items.filter((item) => String(item.pk).startsWith('TOKEN#') && item.email === email);

/**
 * The table's integrity problems that concern `email`. Scoped to the round's address so that
 * a failure stays with the round that caused it (fast-check replays and shrinks rounds; a
 * leftover from an earlier one must not fail them all); the whole table is checked at the end.
 */
async function integrityOf(email: string): Promise<{ items: Item[]; problems: string[] }> {
  const { items, problems } = await checkIntegrity(db, table);
  return { items, problems: problems.filter((problem) => problem.includes(email)) };
}

/** Errors no race may produce: anything but the expected refusals. */
function unexpected(results: readonly unknown[], allowed: readonly string[]): NewsletterError[] {
  return results.filter(
    (result): result is NewsletterError =>
      isNewsletterError(result) && !allowed.includes(result.code),
  );
}

/** What the summary line reports, per interleaving. */
const figures: Record<string, { rounds: number; calls: number; detail: Record<string, number> }> =
  {};

function count(name: string, calls: number, detail: Record<string, number> = {}): void {
  const entry = figures[name] ?? { rounds: 0, calls: 0, detail: {} };
  entry.rounds += 1;
  entry.calls += calls;
  for (const [key, value] of Object.entries(detail))
    entry.detail[key] = (entry.detail[key] ?? 0) + value;
  figures[name] = entry;
}

function report(name: string): void {
  const entry = figures[name];
  if (!entry) return;
  const detail = Object.entries(entry.detail)
    .map(([key, value]) => `${key} ${figure(value)}`)
    .join(', ');
  console.log(
    `[hardening] races/${name}: ${entry.rounds} rounds, ${figure(entry.calls)} concurrent calls${detail ? `; ${detail}` : ''}; integrity held after every round`,
  );
}

/** The calls the mixed interleaving draws from, on one address. */
const OPS = {
  subscribe: (email: string): Promise<unknown> =>
    newsletter.subscribe({ email, name: 'Racer' }, { trusted: false }),
  'subscribe-trusted': (email: string): Promise<unknown> =>
    newsletter.subscribe({ email, lists: [4] }),
  add: (email: string): Promise<unknown> => newsletter.add_subscriber({ email }),
  delete: (email: string): Promise<unknown> => newsletter.delete_subscriber({ email }),
  unsubscribe: (email: string): Promise<unknown> => newsletter.unsubscribe({ email }),
} as const;
type Op = keyof typeof OPS;

describe('races on one address', () => {
  afterEach(async () => {
    // Every round checked its own address; nothing else may have gone wrong either.
    expect((await checkIntegrity(db, table)).problems).toEqual([]);
  });

  it(`subscribe, add_subscriber, delete_subscriber and unsubscribe interleaved (${ROUNDS} rounds)`, async () => {
    const initial = fc.constantFrom('none', 'S', 'C', 'U');
    const ops = fc.array(
      fc.constantFrom<Op>(
        'subscribe',
        'subscribe',
        'subscribe-trusted',
        'add',
        'delete',
        'unsubscribe',
      ),
      { minLength: 2, maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), initial, ops, async (s, start, calls) => {
        round += 1;
        const email = `mixed-${round}@example.com`;
        if (start === 'S') await newsletter.subscribe({ email }, { trusted: false });
        if (start === 'C' || start === 'U') await newsletter.add_subscriber({ email });
        if (start === 'U') await newsletter.unsubscribe({ email });
        const from = deps.mailer.sent.length;

        const results = await interleaved(s, () => calls.map((op) => OPS[op](email)));
        expect(unexpected(results, ['email_exists', 'not_found'])).toEqual([]);

        const { items, problems } = await integrityOf(email);
        expect(problems).toEqual([]);
        const deleted = results.filter(
          (result, i) => calls[i] === 'delete' && !isNewsletterError(result),
        ).length;
        // The clock stands still: each life of the address may send one activation mail.
        const activations = mailsTo(deps.mailer, 'activation', email, from);
        expect(activations.length).toBeLessThanOrEqual(1 + deleted);
        // Only the newest activation link may confirm, and it was mailed exactly once.
        const live = tokenItems(items, email).filter((item) => item.purpose === 'confirm');
        expect(live.length).toBeLessThanOrEqual(1);
        const confirm = subscriberItem(items, email)?.confirm_token;
        if (typeof confirm === 'string') {
          const carriers = mailsTo(deps.mailer, 'activation', email).filter(
            (mail) => hashToken(tokenIn(mail)) === confirm,
          );
          expect(carriers).toHaveLength(1);
        }
        count('subscribe-add-delete', calls.length, {
          'activation mails': activations.length,
          'successful deletes': deleted,
        });
      }),
      { numRuns: ROUNDS },
    );
    report('subscribe-add-delete');
  });

  it('a writer that read the address before it was deleted cannot overwrite its new life (ABA on version)', async () => {
    // The generated interleavings above found this schedule; here it is pinned down. An
    // unsubscribe reads the subscriber (version 1) and is held before its write; meanwhile the
    // address is deleted and subscribed again, which starts a new record, again at version 1.
    const email = 'aba@example.com';
    await newsletter.subscribe({ email }, { trusted: false });
    let held = false;
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holding: Store = Object.assign(Object.create(store) as Store, {
      replaceSubscriber: async (...args: Parameters<Store['replaceSubscriber']>) => {
        if (args[0].status === 'U' && !held) {
          held = true;
          await gate;
        }
        return store.replaceSubscriber(...args);
      },
    });
    newsletter = settling(
      createNewsletter({ ...deps, store: holding }),
      streamWorker(db, table, deps).settle,
    );
    try {
      const leaving = newsletter.unsubscribe({ email });
      while (!held) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await newsletter.delete_subscriber({ email })).toEqual({ deleted: true, email });
      await newsletter.subscribe({ email }, { trusted: false });
      const reborn = (await integrityOf(email)).items.find(
        (item) => item.pk === `SUBSCRIBER#${email}`,
      );
      release();
      expect(isNewsletterError(await leaving)).toBe(false);
      const { items, problems } = await integrityOf(email);
      // Whatever the unsubscribe did, it did it to the subscriber that exists now.
      expect(problems).toEqual([]);
      expect(items.find((item) => item.pk === `SUBSCRIBER#${email}`)?.id).toBe(reborn?.id);
    } finally {
      newsletter = plain();
    }
  });

  it(`a storm of subscribes sends exactly one activation mail per cooldown (${ROUNDS} rounds)`, async () => {
    const storm = fc.record({
      publicCalls: fc.integer({ min: 5, max: 15 }),
      trustedCalls: fc.integer({ min: 0, max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), storm, storm, async (s, first, second) => {
        round += 1;
        const email = `storm-${round}@example.com`;
        const burst =
          ({ publicCalls, trustedCalls }: typeof first) =>
          () => [
            ...Array.from({ length: publicCalls }, (_, i) =>
              newsletter.subscribe({ email, name: `N${i % 3}` }, { trusted: false }),
            ),
            ...Array.from({ length: trustedCalls }, () => newsletter.subscribe({ email })),
          ];
        expect(unexpected(await interleaved(s, burst(first)), [])).toEqual([]);
        const [mail] = mailsTo(deps.mailer, 'activation', email);
        expect(mailsTo(deps.mailer, 'activation', email)).toHaveLength(1);

        // Past the cooldown, the next storm sends one more, and only its link confirms.
        deps.clock.advance(deps.current.settings.resend_cooldown_minutes * 60_000);
        expect(unexpected(await interleaved(s, burst(second)), [])).toEqual([]);
        const mails = mailsTo(deps.mailer, 'activation', email);
        expect(mails).toHaveLength(2);
        const { items, problems } = await integrityOf(email);
        expect(problems).toEqual([]);
        expect(items.filter((item) => item.pk === `SUBSCRIBER#${email}`)).toHaveLength(1);
        expect(await newsletter.check_link({ token: tokenIn(mail), purpose: 'confirm' })).toBe(
          false,
        );
        expect(await newsletter.check_link({ token: tokenIn(mails[1]), purpose: 'confirm' })).toBe(
          true,
        );
        count(
          'subscribe-storm',
          first.publicCalls + first.trustedCalls + second.publicCalls + second.trustedCalls,
          {
            'activation mails': 2,
          },
        );
      }),
      { numRuns: ROUNDS },
    );
    report('subscribe-storm');
  });

  it(`a confirm link posted several times at once confirms once and mails once (${ROUNDS} rounds)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 2, max: 6 }), async (s, clicks) => {
        round += 1;
        const email = `confirm-${round}@example.com`;
        await newsletter.subscribe({ email }, { trusted: false });
        const token = tokenIn(mailsTo(deps.mailer, 'activation', email)[0]);
        const from = deps.mailer.sent.length;

        const outcomes = await interleaved(s, (): Promise<unknown>[] => [
          ...Array.from({ length: clicks }, () =>
            newsletter.confirm_subscription({ token }, { trusted: false }),
          ),
          // A mail scanner opening the link at the same time changes nothing.
          newsletter.check_link({ token, purpose: 'confirm' }),
        ]);
        const confirmations = outcomes.slice(0, clicks);
        expect(confirmations.filter((o) => o === 'confirmed')).toHaveLength(1);
        expect(confirmations.filter((o) => o === 'already_confirmed')).toHaveLength(clicks - 1);
        expect(mailsTo(deps.mailer, 'welcome', email, from)).toHaveLength(1);
        expect(deps.mailer.sent.slice(from).filter((mail) => mail.kind === 'admin')).toHaveLength(
          1,
        );
        const { items, problems } = await integrityOf(email);
        expect(problems).toEqual([]);
        expect(subscriberItem(items, email)?.status).toBe('C');
        expect(tokenItems(items, email).map((item) => item.purpose)).toEqual(
          expect.arrayContaining(['unsubscribe']),
        );
        count('double-confirm', clicks, { 'welcome mails': 1 });
      }),
      { numRuns: ROUNDS },
    );
    report('double-confirm');
  });

  it(`unsubscribing while the confirmation runs ends unsubscribed, with a welcome only for a real confirmation (${ROUNDS} rounds)`, async () => {
    const shape = fc.record({
      clicks: fc.integer({ min: 1, max: 3 }),
      unsubscribes: fc.integer({ min: 1, max: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), shape, async (s, { clicks, unsubscribes }) => {
        round += 1;
        const email = `leave-${round}@example.com`;
        await newsletter.subscribe({ email }, { trusted: false });
        const token = tokenIn(mailsTo(deps.mailer, 'activation', email)[0]);
        const from = deps.mailer.sent.length;

        const results = await interleaved(s, (): Promise<unknown>[] => [
          ...Array.from({ length: clicks }, () =>
            newsletter.confirm_subscription({ token }, { trusted: false }),
          ),
          ...Array.from({ length: unsubscribes }, () => newsletter.unsubscribe({ email })),
        ]);
        expect(unexpected(results, [])).toEqual([]);
        const confirmed = results.slice(0, clicks).filter((o) => o === 'confirmed').length;
        expect(confirmed).toBeLessThanOrEqual(1);
        expect(
          results
            .slice(0, clicks)
            .every((o) => ['confirmed', 'already_confirmed', 'invalid'].includes(String(o))),
        ).toBe(true);
        const { items, problems } = await integrityOf(email);
        expect(problems).toEqual([]);
        expect(subscriberItem(items, email)?.status).toBe('U');
        // Nothing is left waiting in the outbox for someone who left.
        expect(
          items.filter(
            (item) =>
              String(item.pk).startsWith('OUTBOX#') &&
              item.email === email &&
              item.state !== 'sent' &&
              item.state !== 'skipped',
          ),
        ).toEqual([]);
        // A welcome (and an admin notice) only after a real confirmation, and not at all when
        // the unsubscribe came before the mailer got to it.
        const welcomes = mailsTo(deps.mailer, 'welcome', email, from).length;
        expect(welcomes).toBeLessThanOrEqual(confirmed);
        expect(
          deps.mailer.sent.slice(from).filter((mail) => mail.kind === 'admin').length,
        ).toBeLessThanOrEqual(confirmed);
        const lateWelcomes = statusAtSend.filter(
          (sent) => sent.to === email && sent.kind === 'welcome' && sent.status !== 'C',
        ).length;
        // The mailer reads the subscriber, claims the welcome in a write conditional on what it
        // read, then sends: an unsubscribe can only land between that claim and the send. No
        // lock can close that window (the mail is not part of the transaction); the rounds
        // count how often the schedule hit it, and it can only follow a real confirmation.
        expect(lateWelcomes).toBeLessThanOrEqual(confirmed);
        count('unsubscribe-during-confirm', clicks + unsubscribes, {
          'confirmed before the unsubscribe': confirmed,
          'unsubscribed first': 1 - confirmed,
          'welcome withheld (left before it went out)': confirmed - welcomes,
          'welcome sent after the unsubscribe': lateWelcomes,
        });
      }),
      { numRuns: ROUNDS },
    );
    report('unsubscribe-during-confirm');
  });

  it(`deleting while links are followed leaves no token behind (${ROUNDS} rounds)`, async () => {
    const shape = fc.record({
      clicks: fc.integer({ min: 1, max: 3 }),
      deletes: fc.integer({ min: 1, max: 2 }),
      leaves: fc.integer({ min: 0, max: 2 }),
      resubscribe: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), shape, async (s, shape) => {
        round += 1;
        const email = `delete-${round}@example.com`;
        // Confirmed once already, so an unsubscribe link exists, then a fresh activation
        // pending (trusted subscribe of U in double opt-in: S with a new activation mail).
        await newsletter.subscribe({ email }, { trusted: false });
        const first = tokenIn(mailsTo(deps.mailer, 'activation', email)[0]);
        await newsletter.confirm_subscription({ token: first });
        const leave = tokenIn(mailsTo(deps.mailer, 'welcome', email)[0]);

        const results = await interleaved(s, (): Promise<unknown>[] => [
          ...Array.from({ length: shape.clicks }, () =>
            newsletter.confirm_subscription({ token: first }, { trusted: false }),
          ),
          ...Array.from({ length: shape.leaves }, () =>
            newsletter.unsubscribe_link({ token: leave }),
          ),
          ...Array.from({ length: shape.deletes }, () => newsletter.delete_subscriber({ email })),
          ...(shape.resubscribe ? [newsletter.subscribe({ email }, { trusted: false })] : []),
        ]);
        expect(unexpected(results, ['not_found'])).toEqual([]);
        const { items, problems } = await integrityOf(email);
        expect(problems).toEqual([]);
        const subscriber = subscriberItem(items, email);
        if (!subscriber) expect(tokenItems(items, email)).toEqual([]);
        else expect(shape.resubscribe).toBe(true);
        count(
          'delete-during-links',
          shape.clicks + shape.deletes + shape.leaves + Number(shape.resubscribe),
          {
            'address gone at the end': subscriber ? 0 : 1,
          },
        );
      }),
      { numRuns: ROUNDS },
    );
    report('delete-during-links');
  });
});
