import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { openApiV2Document } from '../../../functions/http/openapi-v2-document.ts';
import { EVENT_TYPES, eventSchema } from '../../../shared/domain/events/event-catalogue.ts';
import { sequenceOf } from '../../../shared/domain/events/event-id.ts';
import { issueEvents } from '../../../shared/domain/events/issue-events.ts';
import { subscriberEvents } from '../../../shared/domain/events/subscriber-events.ts';
import { subscriberRecord } from '../../support/fixtures.ts';

const at = new Date('2026-11-02T10:00:00.000Z');

describe('[events.schema] one schema per event type, in code and in the docs', () => {
  it('the v2 description has a webhook per type whose body is its schema', () => {
    const webhooks = openApiV2Document().webhooks as Record<
      string,
      { post: { requestBody: { content: Record<string, { schema: { title: string } }> } } }
    >;
    expect(Object.keys(webhooks)).toEqual(EVENT_TYPES);
    for (const type of EVENT_TYPES)
      expect(webhooks[type]?.post.requestBody.content['application/json']?.schema.title).toBe(
        `Event ${type}`,
      );
  });

  it('docs/api.md names every type in its table of events', () => {
    const page = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    const events = page.slice(page.indexOf('\n# Events\n'));
    for (const type of EVENT_TYPES) expect(events).toContain(`| \`${type}\` |`);
  });

  it('an event with a field of another type, or an extra field, fails its schema', () => {
    const [event] = subscriberEvents({ after: subscriberRecord({ status: 'S', version: 1 }), at });
    expect(v.is(eventSchema('subscriber.subscribed'), event)).toBe(true);
    expect(v.is(eventSchema('subscriber.confirmed'), event)).toBe(false);
    expect(v.is(eventSchema('subscriber.subscribed'), { ...event, extra: 1 })).toBe(false);
  });
});

describe('[events.order] sequence orders one subject’s events', () => {
  it('is fixed-width, so string order is number order', () => {
    expect(sequenceOf(9) < sequenceOf(10)).toBe(true);
    expect(sequenceOf('900') < sequenceOf('1200')).toBe(true);
    expect(sequenceOf(1)).toHaveLength(40);
  });

  it("a subscriber's later change has a larger sequence; a removal comes after the last write", () => {
    const v1 = subscriberRecord({ status: 'S', lists: [1], version: 1 });
    const v2 = subscriberRecord({ status: 'C', lists: [1], version: 2 });
    const first = subscriberEvents({ after: v1, at })[0]?.sequence ?? '';
    const second = subscriberEvents({ before: v1, after: v2, at })[0]?.sequence ?? '';
    const gone = subscriberEvents({ before: v2, at })[0]?.sequence ?? '';
    expect(first < second && second < gone).toBe(true);
  });

  it("an issue's events follow the stream's sequence numbers of its item", () => {
    const issue = { id: 4, subject: 'November', status: 'draft' };
    const change = (status: string, sequence: string) =>
      issueEvents({
        before: issue,
        after: { ...issue, status },
        at,
        streamEventId: sequence,
        streamSequence: sequence,
      })[0]?.sequence ?? '';
    expect(change('sending', '99000000000001') < change('paused', '100000000000002')).toBe(true);
  });
});
