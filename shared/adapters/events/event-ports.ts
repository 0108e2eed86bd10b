import type { NewsletterEvent } from '../../domain/events/event-catalogue.ts';

/**
 * Where the table's stream reader leaves the events it derived: a queue of its own, so that
 * neither EventBridge nor a receiver can hold up the stream (and the sign-ups behind it).
 */
export interface EventOutbox {
  /** Queues the events; throws (DependencyError) when the queue cannot take them. */
  add(events: readonly NewsletterEvent[]): Promise<void>;
}

/** The stack's event bus. */
export interface EventBus {
  /** Publishes the events; answers the ids of those the bus refused (to be tried again). */
  publish(events: readonly NewsletterEvent[]): Promise<ReadonlySet<string>>;
}

/** Which events are on the bus already, so a redelivered one is not published twice. */
export interface PublishedMarks {
  /** The ids among `ids` already published. */
  published(ids: readonly string[]): Promise<ReadonlySet<string>>;
  /** Remembers `ids` as published (for longer than anything could deliver them again). */
  mark(ids: readonly string[], now: Date): Promise<void>;
}
