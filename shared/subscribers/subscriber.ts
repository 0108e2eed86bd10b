import type { MailKind } from '../mail/mail-port.ts';
import type { Gender } from '../params/parse-parameters.ts';

/**
 * `S` not confirmed, `C` confirmed, `U` unsubscribed (kept so no further mail goes out),
 * `B` bounced and `P` complained (both block any further mail).
 */
export type SubscriberStatus = 'S' | 'C' | 'U' | 'B' | 'P';

/** A subscriber as every operation returns it (decisions part 3): no tokens, no internals. */
export interface Subscriber {
  readonly id: number;
  readonly email: string;
  readonly name: string;
  readonly surname: string;
  /** `m`, `f`, `n`, or empty when never given. */
  readonly gender: Gender | '';
  readonly lists: readonly number[];
  readonly profile: Readonly<Record<string, string>>;
  readonly status: SubscriberStatus;
  readonly created: string;
  readonly updated: string;
}

/** A subscriber as stored: the public fields plus the state the subscription process keeps. */
export interface SubscriberRecord extends Subscriber {
  /** Optimistic-concurrency counter; every write is conditional on the version it read. */
  readonly version: number;
  /** Hash of the one activation token that currently confirms this subscriber. */
  readonly confirm_token?: string;
  /** When the last activation mail was claimed (epoch ms); the resend cooldown counts from it. */
  readonly activation_sent_at?: number;
  /** Every live token hash of this subscriber and when it expires (epoch s). */
  readonly tokens: Readonly<Record<string, number>>;
  /** Mails that were due but failed to send; the next touch of the subscriber retries them. */
  readonly pending_mails: readonly MailKind[];
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
  };
}
