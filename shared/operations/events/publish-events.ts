import type { EventBus, PublishedMarks } from '../../adapters/events/event-ports.ts';
import type { NewsletterEvent } from '../../domain/events/event-catalogue.ts';

/** What publishing needs. */
export interface PublishDependencies {
  readonly bus: EventBus;
  readonly marks: PublishedMarks;
  readonly now: () => Date;
}

/** What became of a batch: the ids to try again (the bus refused them, or it was away). */
export interface PublishOutcome {
  readonly published: number;
  /** Already on the bus (a stream record or a queue message delivered again). */
  readonly repeated: number;
  readonly retry: ReadonlySet<string>;
}

/**
 * Puts a batch of events from the events queue on the bus ([events.once]): those already
 * marked published are dropped, the rest put, and each one the bus took is marked. The mark is
 * written after the put: a publisher that dies in between puts that event again, with the same
 * id, when the queue gives the message back, so an event is never lost and a receiver that
 * drops ids it has seen sees it once.
 */
export async function publishEvents(
  deps: PublishDependencies,
  events: readonly NewsletterEvent[],
): Promise<PublishOutcome> {
  const unique = [...new Map(events.map((event) => [event.id, event])).values()];
  const done = await deps.marks.published(unique.map((event) => event.id));
  const fresh = unique.filter((event) => !done.has(event.id));
  if (fresh.length === 0) return { published: 0, repeated: events.length, retry: new Set() };
  const refused = await deps.bus.publish(fresh);
  const taken = fresh.filter((event) => !refused.has(event.id)).map((event) => event.id);
  if (taken.length > 0) await deps.marks.mark(taken, deps.now());
  return { published: taken.length, repeated: events.length - fresh.length, retry: refused };
}
