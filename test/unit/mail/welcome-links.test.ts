/**
 * The links a subscriber keeps when a welcome mail goes out (shared/operations/deliver-mail.ts),
 * with the store replaced by a fake that keeps the mailer's claim: the subscriber record and the
 * token items that claim writes. Pure bookkeeping, so no table is needed.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../shared/adapters/store/store-port.ts';
import type { OutboxMail } from '../../../shared/domain/outbox.ts';
import type { SubscriberRecord } from '../../../shared/domain/subscriber.ts';
import { hashToken } from '../../../shared/domain/tokens.ts';
import { deliverMail } from '../../../shared/operations/deliver-mail.ts';
import {
  RecordingLogger,
  RecordingMailer,
  RecordingMetrics,
  subscriberRecord,
  TestClock,
  testSettings,
} from '../../support/fixtures.ts';

const clock = new TestClock();
const NOW_S = Math.floor(clock.current.getTime() / 1000);
const DAY_S = 86_400;
const CONFIRM = hashToken('the activation link');
/** Unsubscribe links held, in the order the record lists them: neither by expiry nor against it. */
const EXPIRY_DAYS = [
  35, 42, 48, 30, 39, 33, 45, 31, 49, 37, 41, 32, 46, 36, 44, 40, 34, 47, 38, 43,
];
const held = (count: number): Record<string, number> =>
  Object.fromEntries(
    EXPIRY_DAYS.slice(0, count).map((days) => [
      hashToken(`unsubscribe link ${days}`),
      NOW_S + days * DAY_S,
    ]),
  );

function confirmed(tokens: Record<string, number>, confirmToken = CONFIRM): SubscriberRecord {
  return subscriberRecord({
    confirmed_at: '2026-11-01T00:00:00.000Z',
    version: 3,
    confirm_token: confirmToken,
    tokens,
  });
}

/** Sends a welcome to `subscriber`; what the mailer's claim writes. */
async function sendWelcome(subscriber: SubscriberRecord) {
  const mail: OutboxMail = {
    mail_id: 'welcome-1',
    kind: 'welcome',
    email: subscriber.email,
    subscriber_id: subscriber.id,
    link_base: 'https://news.example.com/api/newsletter/v1',
    state: 'queued',
    attempts: 0,
    created: clock.current.toISOString(),
  };
  const claims: Parameters<Store['claimMail']>[0][] = [];
  const store: Pick<Store, 'getOutboxMail' | 'getSubscriber' | 'claimMail' | 'finishMail'> = {
    getOutboxMail: async () => mail,
    getSubscriber: async () => subscriber,
    claimMail: async (claim) => {
      claims.push(claim);
      return true;
    },
    finishMail: async () => undefined,
  };
  const deps = {
    // Only what a welcome that goes out calls; anything else would fail as "not a function".
    store: store as Store,
    settings: async () => testSettings(),
    now: clock.now,
    log: new RecordingLogger(),
    metrics: new RecordingMetrics(),
    mailer: new RecordingMailer(),
  };
  expect(await deliverMail(deps, mail.mail_id)).toBe('sent');
  const [claim] = claims;
  if (!claim || !('subscriber' in claim)) throw new Error('the welcome wrote no subscriber');
  const [minted] = claim.tokens.put;
  if (!minted) throw new Error('the welcome minted no link');
  return { record: claim.subscriber, deleted: claim.tokens.delete, minted };
}

describe('[mail.unsubscribe-link-cap] at most 20 live unsubscribe links per subscriber', () => {
  it.each([
    { count: 19, retired: [], which: 'none of them' },
    { count: 20, retired: [hashToken('unsubscribe link 30')], which: 'the one that expires first' },
  ])('holding $count, the welcome retires $which', async ({ count, retired }) => {
    const before = { ...held(count), [CONFIRM]: NOW_S + DAY_S };
    const { record, deleted, minted } = await sendWelcome(confirmed(before));
    expect(minted).toMatchObject({ purpose: 'unsubscribe', email: 'ada@example.com' });
    expect(deleted).toEqual(retired);
    const kept = Object.keys(before).filter((hash) => !retired.includes(hash));
    expect(Object.keys(record.tokens).sort()).toEqual([...kept, minted.hash].sort());
    // The activation link, sooner to expire than any of them, is not one of the 20.
    expect(record.confirm_token).toBe(CONFIRM);
  });

  it('an activation link that expired before the welcome went out leaves the record with it', async () => {
    const expired = NOW_S - 60;
    const { record, deleted, minted } = await sendWelcome(
      confirmed({ ...held(1), [CONFIRM]: expired }),
    );
    expect(deleted).toEqual([CONFIRM]);
    expect(record).not.toHaveProperty('confirm_token');
    expect(Object.keys(record.tokens).sort()).toEqual(
      [...Object.keys(held(1)), minted.hash].sort(),
    );
  });
});
