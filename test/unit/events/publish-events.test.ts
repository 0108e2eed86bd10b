import { describe, expect, it } from 'vitest';
import type { EventBus, PublishedMarks } from '../../../shared/adapters/events/event-ports.ts';
import type { NewsletterEvent } from '../../../shared/domain/events/event-catalogue.ts';
import { subscriberEvents } from '../../../shared/domain/events/subscriber-events.ts';
import { publishEvents } from '../../../shared/operations/events/publish-events.ts';
import { recordEvents, type TableChange } from '../../../shared/operations/events/record-events.ts';
import { subscriberRecord } from '../../support/fixtures.ts';

const at = new Date('2026-11-02T10:00:00.000Z');
const pending = subscriberRecord({ status: 'S', lists: [1, 2], version: 1 });
const confirmed = subscriberRecord({ status: 'C', lists: [1, 2], version: 2 });
const events = subscriberEvents({ before: pending, after: confirmed, at });

/** A bus that records what it took and refuses the ids in `refuse`. */
function fakeBus(refuse: ReadonlySet<string> = new Set()) {
  const put: string[] = [];
  const bus: EventBus & { put: string[] } = {
    put,
    publish: async (batch) => {
      for (const event of batch) if (!refuse.has(event.id)) put.push(event.id);
      return new Set(batch.filter((event) => refuse.has(event.id)).map((event) => event.id));
    },
  };
  return bus;
}

function fakeMarks(): PublishedMarks & { marked: Set<string> } {
  const marked = new Set<string>();
  return {
    marked,
    published: async (ids) => new Set(ids.filter((id) => marked.has(id))),
    mark: async (ids) => {
      for (const id of ids) marked.add(id);
    },
  };
}

describe('[events.once] publishing', () => {
  it('puts each event once: a batch delivered again puts nothing', async () => {
    const bus = fakeBus();
    const marks = fakeMarks();
    const deps = { bus, marks, now: () => at };
    expect(await publishEvents(deps, [...events, ...events])).toMatchObject({
      published: 3,
      repeated: 3,
    });
    expect(await publishEvents(deps, events)).toMatchObject({ published: 0, repeated: 3 });
    expect(bus.put).toEqual(events.map((event) => event.id));
  });

  it('what the bus refused is to be tried again and is not marked', async () => {
    const refused = events[1]?.id ?? '';
    const marks = fakeMarks();
    const outcome = await publishEvents(
      { bus: fakeBus(new Set([refused])), marks, now: () => at },
      events,
    );
    expect([...outcome.retry]).toEqual([refused]);
    expect(marks.marked.has(refused)).toBe(false);
    expect(marks.marked.size).toBe(2);
  });

  it('a bus that fails whole marks nothing (the batch comes back)', async () => {
    const marks = fakeMarks();
    const bus: EventBus = {
      publish: async () => {
        throw new Error('away');
      },
    };
    await expect(publishEvents({ bus, marks, now: () => at }, events)).rejects.toThrow('away');
    expect(marks.marked.size).toBe(0);
  });
});

describe('[events.subscriber] a removed subscriber item', () => {
  const removed = (facts: Partial<TableChange>, holder: string | undefined) => {
    const queued: NewsletterEvent[] = [];
    return recordEvents(
      {
        outbox: { add: async (batch) => void queued.push(...batch) },
        lookup: { emailById: async () => holder },
        tracking: async () => 'individual',
      },
      [
        {
          kind: 'subscriber',
          eventId: 'e1',
          sequence: '1',
          at,
          byTtl: false,
          before: confirmed,
          ...facts,
        } as TableChange,
      ],
    ).then(() => queued.map((event) => event.type));
  };

  it('is a delete, an expiry (TTL, or past its activation), or a move to another address', async () => {
    expect(await removed({}, undefined)).toEqual(['subscriber.deleted']);
    expect(await removed({ byTtl: true, before: pending }, undefined)).toEqual([
      'subscriber.expired',
    ]);
    const lapsed = { ...pending, expires_at: Math.floor(at.getTime() / 1000) - 1 };
    expect(await removed({ before: lapsed }, undefined)).toEqual(['subscriber.expired']);
    expect(await removed({}, 'ada@new.example')).toEqual([]);
  });
});
