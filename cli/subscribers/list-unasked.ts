import { isUnasked } from '../../shared/domain/decide-subscribe.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import type { Services } from '../connection/services.ts';

/** One `S` subscriber nobody has asked to confirm, as `subscribers unasked` shows it. */
export interface UnaskedSubscriber {
  readonly id: number;
  readonly email: string;
  readonly created: string;
  /** How it joined (consent evidence), when recorded. */
  readonly channel: string;
}

const row = (record: SubscriberRecord): UnaskedSubscriber => ({
  id: record.id,
  email: record.email,
  created: record.created,
  channel: record.consent?.channel ?? '',
});

/**
 * The `S` subscribers who were never sent an activation ([subscribe.expiry-asked-only]): a
 * trusted caller stored them and runs consent itself, so they never expire. Walks the listing
 * index oldest first, like the export, and reads each `S` item itself: the index carries only
 * the listed attributes, not the activation state, and adding one to its projection would
 * mean rebuilding the index of a deployed table for a command an operator runs now and then.
 */
export async function listUnasked(services: Services): Promise<UnaskedSubscriber[]> {
  const store = services.store();
  const found: UnaskedSubscriber[] = [];
  for await (const listed of store.allSubscribers({ order: 'oldest-first' })) {
    if (listed.status !== 'S') continue;
    const record = await store.getSubscriber(listed.email);
    if (record && isUnasked(record)) found.push(row(record));
  }
  return found;
}
