import type { SubscriberRecord } from '../subscriber.ts';
import type { ChangeVia, NewsletterEvent } from './event-catalogue.ts';
import { UPDATED_FIELDS } from './event-catalogue.ts';
import { eventId, sequenceOf } from './event-id.ts';

/** A change of one subscriber item, as the table's stream reports it. */
export interface SubscriberItemChange {
  readonly before?: SubscriberRecord;
  readonly after?: SubscriberRecord;
  /** When the change was made (the stream record's time). */
  readonly at: Date;
  /**
   * A removal by DynamoDB's TTL (the stream record's `userIdentity` is the service), or by a
   * change of address (the subscriber lives on under the new one).
   */
  readonly removedBy?: 'ttl' | 'move';
}

type Updatable = (typeof UPDATED_FIELDS)[number];

/** How a change was made: the writer's word when it wrote this version, else what is known. */
function viaOf(record: SubscriberRecord, fallback: ChangeVia): ChangeVia {
  const last = record.last_change;
  return last && last.version === record.version ? last.via : fallback;
}

/** How a subscriber joined: the consent channel in the events' words. */
function joinedVia(record: SubscriberRecord): ChangeVia {
  const channel = record.consent?.channel;
  if (channel === 'function_class' || channel === undefined) return 'api';
  return channel;
}

/** Whether a record is on a list as a member: confirmed, with the list. */
const memberships = (record: SubscriberRecord | undefined): readonly number[] =>
  record?.status === 'C' ? record.lists : [];

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The public fields a change changed. */
function changedFields(before: SubscriberRecord, after: SubscriberRecord): Updatable[] {
  const fields: Updatable[] = [];
  for (const field of UPDATED_FIELDS) {
    const a = (before as unknown as Record<string, unknown>)[field];
    const b = (after as unknown as Record<string, unknown>)[field];
    const sorted = (value: unknown) =>
      Array.isArray(value) ? [...(value as number[])].sort((x, y) => x - y) : value;
    if (field === 'profile' || field === 'place') {
      const keysOf = (value: unknown) =>
        Object.entries((value ?? {}) as Record<string, unknown>)
          .filter(([, each]) => each !== '' && each !== undefined)
          .sort(([x], [y]) => x.localeCompare(y));
      if (!same(keysOf(a), keysOf(b))) fields.push(field);
    } else if (!same(sorted(a ?? ''), sorted(b ?? ''))) fields.push(field);
  }
  return fields;
}

/**
 * The events of one change of a subscriber item ([events.subscriber]): what a person would say
 * happened, never the bookkeeping (tokens, activation mails, counts). Each event's id comes
 * from the subscriber's id, the version the change wrote and what the event says, so the same
 * change always makes the same ids; `sequence` is that version.
 */
export function subscriberEvents(change: SubscriberItemChange): NewsletterEvent[] {
  const { before, after } = change;
  const subject = after ?? before;
  if (!subject) return [];
  // A removal is the change after the last version written.
  const version = after ? after.version : (before?.version ?? 0) + 1;
  const time = change.at.toISOString();
  const sequence = sequenceOf(version);
  const events: NewsletterEvent[] = [];
  const add = (
    type: NewsletterEvent['type'],
    data: Record<string, unknown>,
    ...distinct: string[]
  ): void => {
    events.push({
      id: eventId('subscriber', String(subject.id), String(version), type, ...distinct),
      type,
      subscriber_id: subject.id,
      time,
      sequence,
      data,
    } as NewsletterEvent);
  };
  if (!after) {
    if (change.removedBy === 'move') return [];
    if (change.removedBy === 'ttl') add('subscriber.expired', {});
    else add('subscriber.deleted', {});
    return events;
  }
  const { email } = after;
  const joined = memberships(after).filter((list) => !memberships(before).includes(list));
  const left = memberships(before).filter((list) => !memberships(after).includes(list));
  if (!before) {
    // A change of address writes the subscriber anew under the new address, at a later
    // version: its lists are the same lists.
    if (after.version > 1) {
      add('subscriber.updated', { email, fields: ['email'] });
      return events;
    }
    if (after.status === 'S')
      add('subscriber.subscribed', {
        email,
        lists: after.lists,
        how: viaOf(after, joinedVia(after)),
      });
    else if (after.status === 'C')
      add('subscriber.confirmed', {
        email,
        lists: after.lists,
        how: viaOf(after, joinedVia(after)),
      });
  } else if (before.status !== after.status) {
    if (after.status === 'C') {
      const fallback: ChangeVia = after.consent?.confirmed ? 'link' : joinedVia(after);
      add('subscriber.confirmed', { email, lists: after.lists, how: viaOf(after, fallback) });
    } else if (after.status === 'U') {
      add('subscriber.unsubscribed', { email, how: viaOf(after, 'api') });
    } else if (after.status === 'B') add('subscriber.bounced', { email });
    else if (after.status === 'P') add('subscriber.complained', { email });
    else if (after.status === 'S') {
      // Back to pending (a keyed change of status, or an unsubscribed address asking again).
      add('subscriber.subscribed', { email, lists: after.lists, how: viaOf(after, 'api') });
    }
  }
  if (before) {
    const fields = changedFields(before, after).filter(
      // A status change has an event of its own; lists move as joins and leaves while a member.
      (field) => field !== 'status' && !(field === 'lists' && after.status === 'C'),
    );
    if (fields.length > 0) add('subscriber.updated', { email, fields });
  }
  for (const list of joined) add('subscriber.list.joined', { email, list_id: list }, String(list));
  for (const list of left) add('subscriber.list.left', { email, list_id: list }, String(list));
  return events;
}
