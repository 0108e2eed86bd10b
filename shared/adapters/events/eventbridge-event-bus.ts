import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandOutput,
} from '@aws-sdk/client-eventbridge';
import { DependencyError } from '../../domain/errors.ts';
import { EVENT_SOURCE, type NewsletterEvent } from '../../domain/events/event-catalogue.ts';
import type { EventBus } from './event-ports.ts';

/** PutEvents takes at most 10 entries (and 256 KB; an event is well under 1 KB). */
const ENTRIES = 10;

/**
 * The stack's EventBridge bus: each event as one entry, `source` the service, `detail-type`
 * the event's type, `detail` the event itself (its stable id inside: EventBridge gives every
 * entry an id of its own, a new one each time it is put).
 */
export class EventBridgeEventBus implements EventBus {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {}

  async publish(events: readonly NewsletterEvent[]): Promise<ReadonlySet<string>> {
    const refused = new Set<string>();
    const batches: NewsletterEvent[][] = [];
    for (let start = 0; start < events.length; start += ENTRIES)
      batches.push(events.slice(start, start + ENTRIES));
    await Promise.all(
      batches.map(async (batch) => {
        let output: PutEventsCommandOutput;
        try {
          output = await this.client.send(
            new PutEventsCommand({
              Entries: batch.map((event) => ({
                EventBusName: this.busName,
                Source: EVENT_SOURCE,
                DetailType: event.type,
                Detail: JSON.stringify(event),
                Time: new Date(event.time),
              })),
            }),
          );
        } catch (error) {
          throw new DependencyError('events', { cause: error });
        }
        // Entries answer in the order given; one with an ErrorCode was not put.
        (output.Entries ?? []).forEach((entry, index) => {
          const event = batch[index];
          if (entry.ErrorCode && event) refused.add(event.id);
        });
      }),
    );
    return refused;
  }
}
