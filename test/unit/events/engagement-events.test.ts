import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  engagementEvents,
  type RecipientChange,
} from '../../../shared/domain/events/engagement-events.ts';
import { eventSchema } from '../../../shared/domain/events/event-catalogue.ts';

const at = new Date('2026-11-02T10:00:00.000Z');
const sent = { subscriber_id: 7 };
const opened = { ...sent, opened_at: '2026-11-02T09:59:00.000Z' };
const change = (over: Partial<RecipientChange>): RecipientChange => ({
  issueId: 4,
  before: sent,
  after: opened,
  at,
  streamSequence: '1200',
  tracking: 'individual',
  ...over,
});

describe('[events.engagement] opens and clicks, only under individual tracking', () => {
  it('a first open is opened and a first click clicked, at the times SES gave; later ones none', () => {
    const [open] = engagementEvents(change({}));
    expect(open).toMatchObject({
      type: 'engagement.opened',
      issue_id: 4,
      subscriber_id: 7,
      time: '2026-11-02T09:59:00.000Z',
      data: {},
    });
    expect(v.is(eventSchema('engagement.opened'), open)).toBe(true);
    const clicked = { ...opened, clicked_at: '2026-11-02T09:59:30.000Z' };
    const [click, ...more] = engagementEvents(change({ before: opened, after: clicked }));
    expect(more).toEqual([]);
    expect(click).toMatchObject({ type: 'engagement.clicked', time: '2026-11-02T09:59:30.000Z' });
    expect(v.is(eventSchema('engagement.clicked'), click)).toBe(true);
    // A later click moves nothing on the record; one that arrived late moves the time back.
    const earlier = { ...clicked, clicked_at: '2026-11-02T09:59:10.000Z' };
    expect(engagementEvents(change({ before: clicked, after: earlier }))).toEqual([]);
  });

  it('the same open or click derived again has the same id; a moved first open is none', () => {
    expect(engagementEvents(change({}))[0]?.id).toBe(
      engagementEvents(change({ streamSequence: '9999', at: new Date() }))[0]?.id,
    );
    const earlier = { ...opened, opened_at: '2026-11-02T09:00:00.000Z' };
    expect(engagementEvents(change({ before: opened, after: earlier }))).toEqual([]);
  });

  it('under counts or off tracking no event names anyone', () => {
    const clicked = { ...opened, clicked_at: at.toISOString() };
    for (const tracking of ['counts', 'off'] as const)
      expect(engagementEvents(change({ after: clicked, tracking }))).toEqual([]);
  });
});
