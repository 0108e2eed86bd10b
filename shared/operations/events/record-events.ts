import type { EventOutbox } from '../../adapters/events/event-ports.ts';
import type { TrackingMode } from '../../domain/engagement/engagement.ts';
import { engagementEvents, type RecipientImage } from '../../domain/events/engagement-events.ts';
import type { NewsletterEvent } from '../../domain/events/event-catalogue.ts';
import { type IssueImage, issueEvents } from '../../domain/events/issue-events.ts';
import { subscriberEvents } from '../../domain/events/subscriber-events.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';

/** What every change of the stream carries besides its images. */
interface StreamFacts {
  /** The stream record's `eventID` and `SequenceNumber`. */
  readonly eventId: string;
  readonly sequence: string;
  readonly at: Date;
  /** Whether DynamoDB's TTL made the change (a removal as the service). */
  readonly byTtl: boolean;
}

/** A change of a subscriber or an issue item, as the table's stream reader hands it over. */
export type TableChange = StreamFacts &
  (
    | {
        readonly kind: 'subscriber';
        readonly before?: SubscriberRecord;
        readonly after?: SubscriberRecord;
      }
    | { readonly kind: 'issue'; readonly before?: IssueImage; readonly after?: IssueImage }
    | {
        readonly kind: 'recipient';
        readonly issueId: number;
        readonly before?: RecipientImage;
        readonly after?: RecipientImage;
      }
  );

/** Who has a subscriber id now, by address. */
export interface SubscriberLookup {
  emailById(id: number): Promise<string | undefined>;
}

/**
 * How a subscriber item went away: DynamoDB's TTL (a pending subscriber whose activation
 * expired; a delete after the expiry that TTL had not got to yet counts as one too), a change
 * of address (the id lives on under another address), or a delete.
 */
async function removal(
  lookup: SubscriberLookup,
  change: StreamFacts & { readonly before: SubscriberRecord },
): Promise<'ttl' | 'move' | undefined> {
  const { before } = change;
  const expired =
    before.status === 'S' &&
    before.expires_at !== undefined &&
    before.expires_at * 1000 <= change.at.getTime();
  if (change.byTtl || expired) return 'ttl';
  const now = await lookup.emailById(before.id);
  return now !== undefined && now !== before.email ? 'move' : undefined;
}

/**
 * Derives the events of a batch of the stream's changes and leaves them on the events queue
 * ([events.stream]); answers how many. A batch delivered again makes the same events with the
 * same ids, which the publisher puts on the bus once.
 */
export async function recordEvents(
  deps: {
    readonly outbox: EventOutbox;
    readonly lookup: SubscriberLookup;
    /** `campaign.tracking` now; read only for a batch with engagement in it. */
    readonly tracking: () => Promise<TrackingMode>;
  },
  changes: readonly TableChange[],
): Promise<number> {
  const events: NewsletterEvent[] = [];
  const tracking = changes.some((change) => change.kind === 'recipient')
    ? await deps.tracking()
    : 'off';
  for (const change of changes) {
    if (change.kind === 'recipient') {
      events.push(
        ...engagementEvents({
          issueId: change.issueId,
          ...(change.before ? { before: change.before } : {}),
          ...(change.after ? { after: change.after } : {}),
          at: change.at,
          streamSequence: change.sequence,
          tracking,
        }),
      );
      continue;
    }
    if (change.kind === 'issue') {
      events.push(
        ...issueEvents({
          ...(change.before ? { before: change.before } : {}),
          ...(change.after ? { after: change.after } : {}),
          at: change.at,
          streamEventId: change.eventId,
          streamSequence: change.sequence,
        }),
      );
      continue;
    }
    const removedBy =
      change.after === undefined && change.before !== undefined
        ? await removal(deps.lookup, { ...change, before: change.before })
        : undefined;
    events.push(
      ...subscriberEvents({
        ...(change.before ? { before: change.before } : {}),
        ...(change.after ? { after: change.after } : {}),
        at: change.at,
        ...(removedBy ? { removedBy } : {}),
      }),
    );
  }
  if (events.length > 0) await deps.outbox.add(events);
  return events.length;
}
