import { newSubscriberRecord } from '../shared/domain/decide-subscribe.ts';
import type { AddSubscriberParameters } from '../shared/domain/parameters/parse-parameters.ts';
import type { Settings } from '../shared/domain/settings-schema.ts';
import type { SubscriberRecord } from '../shared/domain/subscriber.ts';
import { testSettings } from '../test/support/fixtures.ts';
import { dynamoItemSize, subscriberItem } from './dynamo.ts';

/** Stored size of the "1 KB subscriber", in bytes as DynamoDB counts them (1 KB = 1,000). */
export const KILOBYTE_ITEM_BYTES = 1_000;

/** The test settings with four profile fields, room for a subscriber of about 1 KB. */
export function benchSettings(): Settings {
  return testSettings({
    profile_fields: [
      { id: 'city', name: 'City' },
      { id: 'company', name: 'Company' },
      { id: 'role', name: 'Role' },
      { id: 'interests', name: 'Interests' },
    ],
  });
}

/** A bench address; all have the same length, so items built from one pattern size alike. */
export function benchEmail(kind: string, n: number): string {
  return `${kind}-${String(n).padStart(7, '0')}@example.com`;
}

const FILLER =
  'Reads the weekly digest on Mondays, likes release notes, asks about events near Lyon; ';

/**
 * `add_subscriber` parameters whose stored item (keys, index key, process state included)
 * is KILOBYTE_ITEM_BYTES for an address of benchEmail's length and a seven-digit id (shorter
 * ids store a byte or three less): name, surname, lists and four profile fields, the last
 * one trimmed to fit.
 */
export function kilobyteSubscriber(
  email: string,
  settings: Settings,
): AddSubscriberParameters & { profile: Record<string, string> } {
  const base = {
    email,
    status: 'C' as const,
    name: 'Augusta Ada',
    surname: 'King-Noel, Countess of Lovelace',
    gender: 'f' as const,
    lists: [1, 4],
    profile: {
      city: 'London, Marylebone, 12 St James Square; in summer Ockham Park, Surrey, and Ashley Combe near Porlock, Somerset, on the coast',
      company:
        'Analytical Engine Enthusiasts of Great Britain and Ireland Ltd, Difference Engine Division',
      role: 'Mathematician, translator and author of the first published program; writes notes on the engine, on Bernoulli numbers, on music the engine might compose, and on the limits of machines that can only do what they are ordered to perform.',
      interests: '',
    },
  };
  const size = (interests: string) =>
    dynamoItemSize(
      subscriberItem(
        storedRecord({ ...base, profile: { ...base.profile, interests } }, settings, 1_234_567),
      ),
    );
  const room = KILOBYTE_ITEM_BYTES - size('');
  if (room < 0 || room > 255) throw new Error(`bench: cannot size the 1 KB subscriber (${room})`);
  // Values are trimmed when parsed, so the cut must not end in a space.
  const interests = FILLER.repeat(4).slice(0, room).replace(/ $/, '.');
  if (size(interests) !== KILOBYTE_ITEM_BYTES) throw new Error('bench: 1 KB subscriber missized');
  return { ...base, profile: { ...base.profile, interests } };
}

/** The record `add_subscriber` stores for these parameters, with `id` and version 1. */
export function storedRecord(
  params: AddSubscriberParameters,
  settings: Settings,
  id: number,
  now = new Date('2026-11-22T10:00:00.000Z'),
): SubscriberRecord {
  return {
    ...newSubscriberRecord(params.email, params, params.status, settings, now),
    // As add_subscriber records an in-process call: the evidence every subscriber carries.
    consent: { channel: 'function_class', subscribed: { at: now.toISOString() } },
    id,
    version: 1,
  };
}
