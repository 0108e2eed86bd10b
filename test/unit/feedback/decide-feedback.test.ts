import { describe, expect, it } from 'vitest';
import { decideFeedback, type RecipientFeedback } from '../../../shared/domain/decide-feedback.ts';
import type { SubscriberRecord, SubscriberStatus } from '../../../shared/domain/subscriber.ts';
import { subscriberRecord } from '../../support/fixtures.ts';

const NOW = new Date('2026-11-22T10:00:00.000Z');
const CREATED = '2026-10-01T08:00:00.000Z';

function subscriber(
  status: SubscriberStatus,
  extra: Partial<SubscriberRecord> = {},
): SubscriberRecord {
  return subscriberRecord({ status, created: CREATED, updated: CREATED, version: 4, ...extra });
}

const HARD: RecipientFeedback = { kind: 'hard-bounce' };
const COMPLAINT: RecipientFeedback = { kind: 'complaint' };
const DELIVERY: RecipientFeedback = { kind: 'delivery' };
const soft = (mailId: string, limit = 3): RecipientFeedback => ({
  kind: 'soft-bounce',
  mailId,
  limit,
});

describe('[feedback.bounce] a hard bounce', () => {
  it.each([
    ['S', 'B'],
    ['C', 'B'],
    ['U', 'B'],
    ['B', 'B'],
    ['P', 'P'],
  ] as const)('turns %s into %s', (from, to) => {
    const decision = decideFeedback(subscriber(from), HARD, NOW);
    expect(decision.next?.status ?? from).toBe(to);
    // A write only when the status changes, and then `updated` says when.
    expect(decision.next === undefined).toBe(from === to);
    if (decision.next) expect(decision.next.updated).toBe(NOW.toISOString());
    expect(decision.outcome).toBe(from === to ? 'unchanged' : 'bounced');
  });
});

describe('[subscribe.unconfirmed-expiry] a blocked address', () => {
  it.each([
    ['a hard bounce', HARD],
    ['a complaint', COMPLAINT],
  ] as const)('never expires once %s blocks it: its record keeps mail away', (_label, event) => {
    const pending = subscriber('S', { expires_at: NOW.getTime() / 1000 + 86_400 });
    const decision = decideFeedback(pending, event, NOW);
    expect(decision.next?.expires_at).toBeUndefined();
  });
});

describe('[feedback.complaint] a complaint', () => {
  it.each([
    ['S', 'P'],
    ['C', 'P'],
    ['U', 'P'],
    ['B', 'P'],
    ['P', 'P'],
  ] as const)('turns %s into %s', (from, to) => {
    const decision = decideFeedback(subscriber(from), COMPLAINT, NOW);
    expect(decision.next?.status ?? from).toBe(to);
    expect(decision.outcome).toBe(from === 'P' ? 'unchanged' : 'complained');
  });

  it('is never downgraded to B by a later bounce, hard or soft', () => {
    const complained = subscriber('P');
    expect(decideFeedback(complained, HARD, NOW)).toEqual({ outcome: 'unchanged' });
    expect(decideFeedback(complained, soft('m1', 1), NOW)).toEqual({ outcome: 'unchanged' });
  });
});

describe('[feedback.transient] soft bounces', () => {
  it.each([
    // status, count before, limit, expected outcome, status after, count after
    ['C', undefined, 3, 'counted', 'C', 1],
    ['C', 1, 3, 'counted', 'C', 2],
    ['C', 2, 3, 'bounced', 'B', undefined],
    ['S', 2, 3, 'bounced', 'B', undefined],
    ['U', 0, 3, 'counted', 'U', 1],
    ['C', undefined, 1, 'bounced', 'B', undefined],
    ['C', 9, 100, 'counted', 'C', 10],
  ] as const)(
    '%s with %s counted, limit %s: %s, then %s with %s',
    (status, before, limit, outcome, after, count) => {
      const current = subscriber(status, before === undefined ? {} : { transient_bounces: before });
      const decision = decideFeedback(current, soft('mail-new', limit), NOW);
      expect(decision.outcome).toBe(outcome);
      expect(decision.next?.status).toBe(after);
      expect(decision.next?.transient_bounces).toBe(count);
      // Only a status change touches `updated`; a count is process state.
      expect(decision.next?.updated).toBe(after === status ? CREATED : NOW.toISOString());
    },
  );

  it('counts one mail once, however often its bounce is delivered', () => {
    const once = decideFeedback(subscriber('C'), soft('mail-1'), NOW).next;
    expect(once?.transient_bounces).toBe(1);
    if (!once) throw new Error('not counted');
    expect(decideFeedback(once, soft('mail-1'), NOW)).toEqual({ outcome: 'unchanged' });
    expect(decideFeedback(once, soft('mail-2'), NOW).next?.transient_bounces).toBe(2);
  });

  it.each(['B', 'P'] as const)('counts nothing for %s, which gets no mail', (status) => {
    expect(decideFeedback(subscriber(status), soft('m'), NOW)).toEqual({ outcome: 'unchanged' });
  });

  it('are cleared by a delivery, which writes only when something was counted', () => {
    const counting = subscriber('C', { transient_bounces: 2, transient_bounce_mail: 'm' });
    const decision = decideFeedback(counting, DELIVERY, NOW);
    expect(decision.outcome).toBe('reset');
    expect(decision.next).toEqual(subscriber('C'));
    expect(decideFeedback(subscriber('C'), DELIVERY, NOW)).toEqual({ outcome: 'unchanged' });
    expect(decideFeedback(subscriber('C', { transient_bounces: 0 }), DELIVERY, NOW)).toEqual({
      outcome: 'unchanged',
    });
  });

  it('leave no count behind on a subscriber they block', () => {
    const blocked = decideFeedback(
      subscriber('C', { transient_bounces: 2, transient_bounce_mail: 'old' }),
      soft('new'),
      NOW,
    ).next;
    expect(blocked).toEqual({ ...subscriber('B'), updated: NOW.toISOString() });
  });
});

describe('every decision', () => {
  it('keeps the version it read: the operation bumps it with the conditional write', () => {
    for (const feedback of [HARD, COMPLAINT, DELIVERY, soft('m')]) {
      const next = decideFeedback(subscriber('C', { transient_bounces: 1 }), feedback, NOW).next;
      expect(next?.version).toBe(4);
      expect(next?.id).toBe(7);
    }
  });
});
