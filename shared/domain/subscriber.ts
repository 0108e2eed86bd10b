import * as v from 'valibot';
import { ConsentSchema } from './consent.ts';
import type { ChangeVia } from './events/event-catalogue.ts';

const isoDate = v.pipe(v.string(), v.isoTimestamp(), v.description('ISO 8601 time, UTC.'));

/**
 * A subscriber as every operation returns it (decisions part 3): no tokens, no internals. The
 * schema documents the API (OpenAPI) and is the source of the `Subscriber` type.
 */
export const SubscriberSchema = v.pipe(
  v.strictObject({
    id: v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description('Unique, increasing with creation time.'),
    ),
    email: v.pipe(v.string(), v.email()),
    name: v.string(),
    surname: v.string(),
    gender: v.pipe(v.picklist(['m', 'f', 'n', '']), v.description('Empty when never given.')),
    lists: v.array(v.pipe(v.number(), v.integer())),
    profile: v.record(v.string(), v.string()),
    status: v.pipe(
      v.picklist(['S', 'C', 'U', 'B', 'P']),
      v.description('S not confirmed, C confirmed, U unsubscribed, B bounced, P complained.'),
    ),
    created: isoDate,
    updated: isoDate,
    consent: v.optional(
      v.pipe(
        ConsentSchema,
        v.description('How and when the subscriber joined and confirmed; keyed callers only.'),
      ),
    ),
    ignored_profile_fields: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description(
          'Only in the answer of a keyed subscribe or subscribers/add: the profile fields of the call that the settings do not define (profile_<id>), which were not stored.',
        ),
      ),
    ),
  }),
  v.title('Subscriber'),
);

/**
 * `S` not confirmed, `C` confirmed, `U` unsubscribed (kept so no further mail goes out),
 * `B` bounced and `P` complained (both block any further mail).
 */
export type SubscriberStatus = v.InferOutput<typeof SubscriberSchema>['status'];

/** A subscriber as every operation returns it. */
export type Subscriber = Readonly<v.InferOutput<typeof SubscriberSchema>>;

/** A subscriber as stored: the public fields plus the state the subscription process keeps. */
export interface SubscriberRecord extends Subscriber {
  /** Optimistic-concurrency counter; every write is conditional on the version it read. */
  readonly version: number;
  /**
   * Storage bookkeeping, set only on a record read from an item stored before the subscriber
   * counts began (docs/storage.md): it is not in the counts until `subscribers reindex` or its
   * next change counts it. Every record written is counted.
   */
  readonly uncounted?: true;
  /** Hash of the one activation token that currently confirms this subscriber. */
  readonly confirm_token?: string;
  /** When the last activation mail was claimed (epoch ms); the resend cooldown counts from it. */
  readonly activation_sent_at?: number;
  /** The outbox mail of the current activation; an older one is superseded and not sent. */
  readonly activation_outbox?: string;
  /** Id of the change that wrote this version; tells a writer whose answer was lost its own write. */
  readonly change_id?: string;
  /** Every live token hash of this subscriber and when it expires (epoch s). */
  readonly tokens: Readonly<Record<string, number>>;
  /** When recent activation mails were queued (epoch ms), for the rolling cap. */
  readonly activation_log?: readonly number[];
  /**
   * Epoch seconds after which DynamoDB's TTL deletes the record: set only while it is an `S`
   * that was sent an activation and never confirmed, so an address that was asked and never
   * answered does not stay forever. An `S` nobody asked has none ([subscribe.expiry-asked-only]).
   */
  readonly expires_at?: number;
  /** Transient bounces in a row (SES feedback); absent when none since the last delivery. */
  readonly transient_bounces?: number;
  /** SES message id of the mail whose transient bounce was counted last: counted once. */
  readonly transient_bounce_mail?: string;
  /**
   * When it last became `C` (ISO): a campaign that started before is not for someone who
   * confirmed after ([campaign.recheck]). Records confirmed before this was kept lack it.
   */
  readonly confirmed_at?: string;
  /** Country (ISO 3166 two letters), region and city, as API v2 takes and shows them. */
  readonly place?: { readonly country?: string; readonly region?: string; readonly city?: string };
  /** The subscriber's language as API v2 took it (`en`, `pt_BR`); shown nowhere yet. */
  readonly language?: string;
  /**
   * How the change that wrote `version` was made, for its event ([events.subscriber]): a
   * writer that knows (a link, one-click, a person in the console) says so; an older version's
   * word does not apply to a later change, hence the version.
   */
  readonly last_change?: { readonly via: ChangeVia; readonly version: number };
}

/**
 * Whether mail to this subscriber may say what callers wrote into its record (name, surname;
 * [mail.caller-text]). Only when its owner stands behind it: it was added by a trusted caller
 * (a key, the function class, an import, the CLI), or the person confirmed through their
 * activation link since. A keyless sign-up's fields are anyone's words until then (a stranger
 * can type a victim's address and "your account is locked, see evil.example" as the name), so
 * the mails that reach the address before it confirms (the activation; in single opt-in, the
 * welcome) carry none of them. A record without consent evidence (stored before it was kept)
 * cannot show who wrote its fields, so it counts as unconfirmed.
 */
export function ownerVouchesFields(record: SubscriberRecord): boolean {
  const consent = record.consent;
  if (!consent) return false;
  return consent.channel !== 'public_form' || consent.confirmed !== undefined;
}

/** Strips a record down to what callers may see. */
export function toSubscriber(record: SubscriberRecord): Subscriber {
  return {
    id: record.id,
    email: record.email,
    name: record.name,
    surname: record.surname,
    gender: record.gender,
    lists: record.lists,
    profile: record.profile,
    status: record.status,
    created: record.created,
    updated: record.updated,
    ...(record.consent ? { consent: record.consent } : {}),
  };
}
