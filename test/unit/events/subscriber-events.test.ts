import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { eventSchema } from '../../../shared/domain/events/event-catalogue.ts';
import { issueEvents } from '../../../shared/domain/events/issue-events.ts';
import { subscriberEvents } from '../../../shared/domain/events/subscriber-events.ts';
import { subscriberRecord } from '../../support/fixtures.ts';

const at = new Date('2026-11-02T10:00:00.000Z');
const pending = subscriberRecord({ status: 'S', lists: [1, 2], version: 1 });
const confirmed = subscriberRecord({ status: 'C', lists: [1, 2], version: 2 });

const types = (events: ReturnType<typeof subscriberEvents>) => events.map((event) => event.type);

describe('[events.subscriber] the events of a subscriber change', () => {
  it('a new pending subscriber is subscribed; confirming joins each list, all of one sequence', () => {
    expect(types(subscriberEvents({ after: pending, at }))).toEqual(['subscriber.subscribed']);
    const events = subscriberEvents({ before: pending, after: confirmed, at });
    expect(types(events)).toEqual([
      'subscriber.confirmed',
      'subscriber.list.joined',
      'subscriber.list.joined',
    ]);
    expect(new Set(events.map((event) => event.sequence)).size).toBe(1);
    expect(new Set(events.map((event) => event.id)).size).toBe(3);
    for (const event of events) expect(v.is(eventSchema(event.type), event)).toBe(true);
  });

  it('derived again, the same change makes the same ids', () => {
    const once = subscriberEvents({ before: pending, after: confirmed, at });
    const again = subscriberEvents({ before: pending, after: confirmed, at: new Date() });
    expect(again.map((event) => event.id)).toEqual(once.map((event) => event.id));
  });

  it('unsubscribing says how, leaves the lists; bookkeeping alone makes nothing', () => {
    const left = subscriberRecord({
      status: 'U',
      lists: [1, 2],
      version: 3,
      last_change: { via: 'one_click', version: 3 },
    });
    const events = subscriberEvents({ before: confirmed, after: left, at });
    expect(types(events)).toEqual([
      'subscriber.unsubscribed',
      'subscriber.list.left',
      'subscriber.list.left',
    ]);
    expect(events[0]?.data).toEqual({ email: 'ada@example.com', how: 'one_click' });
    // An older change's word does not apply to a later one.
    const stale = { ...left, version: 4 };
    expect(subscriberEvents({ before: confirmed, after: stale, at })[0]?.data).toMatchObject({
      how: 'api',
    });
    const tokens = { ...confirmed, version: 3, tokens: { abc: 1 } };
    expect(subscriberEvents({ before: confirmed, after: tokens, at })).toEqual([]);
  });

  it('a changed name is an update naming the field; a list change of a member joins and leaves', () => {
    const renamed = { ...confirmed, name: 'Ada L.', lists: [2, 3], version: 3 };
    expect(
      subscriberEvents({ before: confirmed, after: renamed, at }).map((event) => [
        event.type,
        event.data,
      ]),
    ).toEqual([
      ['subscriber.updated', { email: 'ada@example.com', fields: ['name'] }],
      ['subscriber.list.joined', { email: 'ada@example.com', list_id: 3 }],
      ['subscriber.list.left', { email: 'ada@example.com', list_id: 1 }],
    ]);
  });

  it('bounces and complaints; a delete names nobody; an expiry and a move are told apart', () => {
    const bounced = { ...confirmed, status: 'B' as const, version: 3 };
    expect(types(subscriberEvents({ before: confirmed, after: bounced, at }))[0]).toBe(
      'subscriber.bounced',
    );
    const complained = { ...confirmed, status: 'P' as const, version: 3 };
    expect(types(subscriberEvents({ before: confirmed, after: complained, at }))[0]).toBe(
      'subscriber.complained',
    );
    const deleted = subscriberEvents({ before: confirmed, at });
    expect(deleted).toEqual([
      expect.objectContaining({ type: 'subscriber.deleted', subscriber_id: 7, data: {} }),
    ]);
    expect(JSON.stringify(deleted)).not.toContain('ada@');
    expect(deleted[0]?.sequence).toMatch(/0*3$/);
    expect(types(subscriberEvents({ before: pending, at, removedBy: 'ttl' }))).toEqual([
      'subscriber.expired',
    ]);
    expect(subscriberEvents({ before: confirmed, at, removedBy: 'move' })).toEqual([]);
    const moved = { ...confirmed, email: 'ada@new.example', version: 3 };
    expect(subscriberEvents({ after: moved, at })).toEqual([
      expect.objectContaining({
        type: 'subscriber.updated',
        data: { email: 'ada@new.example', fields: ['email'] },
      }),
    ]);
  });
});

describe('[events.issue] the events of an issue change', () => {
  const issue = { id: 4, subject: 'November', status: 'draft' };
  const change = (before: object | undefined, after: object, eventId = 'e1') =>
    issueEvents({
      ...(before ? { before: before as typeof issue } : {}),
      after: after as typeof issue,
      at,
      streamEventId: eventId,
      streamSequence: '1200',
    });

  it('each status it moves to is an event; counts moving while sending are none', () => {
    const sending = { ...issue, status: 'sending', run: 1, lists: [1], sent: 0 };
    expect(
      change(issue, { ...issue, status: 'scheduled', scheduled_at: at.toISOString() })[0]?.type,
    ).toBe('issue.scheduled');
    expect(change(issue, sending)[0]?.data).toEqual({ subject: 'November', run: 1, lists: [1] });
    expect(change(sending, { ...sending, sent: 40 })).toEqual([]);
    expect(
      change(sending, { ...sending, status: 'paused', pause_reason: 'quota' })[0]?.data,
    ).toEqual({
      subject: 'November',
      reason: 'quota',
    });
    const sent = { ...sending, status: 'sent', total: 3, sent: 2, skipped: 1, failed: 0 };
    expect(change(sending, sent)[0]?.data).toEqual({
      subject: 'November',
      run: 1,
      total: 3,
      sent: 2,
      skipped: 1,
      failed: 0,
    });
    expect(change(issue, { ...issue, status: 'cancelled' })[0]?.type).toBe('issue.cancelled');
  });

  it('a pause twice is two events; one stream record derived again is the same id', () => {
    const sending = { ...issue, status: 'sending' };
    const paused = { ...issue, status: 'paused', pause_reason: 'operator' };
    const first = change(sending, paused, 'a')[0]?.id;
    expect(change(sending, paused, 'a')[0]?.id).toBe(first);
    expect(change(sending, paused, 'b')[0]?.id).not.toBe(first);
  });
});
