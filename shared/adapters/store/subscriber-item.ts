import type { Consent } from '../../domain/consent.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import { subscriberIndexPartition } from './subscriber-index.ts';
import { COUNTED, INDEX, keys, TTL_ATTRIBUTE } from './table-design.ts';

type Item = Record<string, unknown>;

/** A subscriber record as its item: keys, its index partition (by id), and the record. */
export function toSubscriberItem(record: SubscriberRecord): Item {
  const { uncounted: _read, ...stored } = record;
  return {
    ...keys.subscriber(record.email),
    [INDEX.recent.partition]: subscriberIndexPartition(record.id),
    ...stored,
  };
}

/**
 * The item of a subscriber written with their counts: every write of a subscriber record
 * goes with its count changes, so the item carries the mark ([v2.paging-counts]).
 */
export function toCountedSubscriberItem(record: SubscriberRecord): Item {
  return { ...toSubscriberItem(record), [COUNTED]: true };
}

/** A subscriber item read back as a record. */
export function fromSubscriberItem(item: Item): SubscriberRecord {
  return {
    id: Number(item.id),
    email: String(item.email),
    name: String(item.name ?? ''),
    surname: String(item.surname ?? ''),
    gender: (item.gender ?? '') as SubscriberRecord['gender'],
    lists: ((item.lists as unknown[] | undefined) ?? []).map(Number),
    profile: (item.profile ?? {}) as Record<string, string>,
    status: item.status as SubscriberRecord['status'],
    created: String(item.created),
    updated: String(item.updated),
    version: Number(item.version ?? 0),
    ...(item[COUNTED] === true ? {} : { uncounted: true as const }),
    ...(typeof item.confirm_token === 'string' ? { confirm_token: item.confirm_token } : {}),
    ...(typeof item.activation_sent_at === 'number'
      ? { activation_sent_at: item.activation_sent_at }
      : {}),
    ...(typeof item.activation_outbox === 'string'
      ? { activation_outbox: item.activation_outbox }
      : {}),
    ...(typeof item.change_id === 'string' ? { change_id: item.change_id } : {}),
    tokens: (item.tokens ?? {}) as Record<string, number>,
    ...(item.consent ? { consent: item.consent as Consent } : {}),
    ...(Array.isArray(item.activation_log)
      ? { activation_log: (item.activation_log as unknown[]).map(Number) }
      : {}),
    ...(typeof item[TTL_ATTRIBUTE] === 'number' ? { expires_at: item[TTL_ATTRIBUTE] } : {}),
    ...(typeof item.transient_bounces === 'number'
      ? { transient_bounces: item.transient_bounces }
      : {}),
    ...(typeof item.transient_bounce_mail === 'string'
      ? { transient_bounce_mail: item.transient_bounce_mail }
      : {}),
    ...(typeof item.confirmed_at === 'string' ? { confirmed_at: item.confirmed_at } : {}),
    ...(item.place && typeof item.place === 'object'
      ? { place: item.place as NonNullable<SubscriberRecord['place']> }
      : {}),
    ...(typeof item.language === 'string' ? { language: item.language } : {}),
    ...(item.last_change && typeof item.last_change === 'object'
      ? { last_change: item.last_change as NonNullable<SubscriberRecord['last_change']> }
      : {}),
  };
}
