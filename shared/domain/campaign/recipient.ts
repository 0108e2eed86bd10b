import type { SubscriberRecord } from '../subscriber.ts';

/**
 * Where a recipient of a campaign is: planned (`pending`), claimed by a worker for one attempt
 * (`sending`, with a lease), or settled: `sent`, `skipped` (left, bounced, deleted... before
 * their turn), `failed` (SES refused the message).
 */
export type RecipientState = 'pending' | 'sending' | 'sent' | 'skipped' | 'failed';

/** The settled states: a recipient in one of them gets nothing more of this issue. */
export const SETTLED_STATES: ReadonlySet<RecipientState> = new Set(['sent', 'skipped', 'failed']);

/** Why a planned recipient got nothing when their turn came. */
export type SkipReason =
  | 'deleted'
  | 'unsubscribed'
  | 'bounced'
  | 'complained'
  | 'not_confirmed'
  | 'off_lists'
  | 'confirmed_after_start';

/** A recipient record as stored: no address, only the subscriber's id (docs/storage.md). */
export interface RecipientRecord {
  readonly newsletter_id: number;
  readonly subscriber_id: number;
  readonly state: RecipientState;
  /** The run that planned it. */
  readonly run: number;
  /** Epoch ms until which a `sending` claim holds; after it another worker may take over. */
  readonly lease_until?: number;
  /** The invocation holding the claim: only it may settle the recipient. */
  readonly owner?: string;
  /** Send attempts so far. */
  readonly attempts: number;
  /** When it was settled (ISO). */
  readonly at?: string;
  readonly message_id?: string;
  readonly reason?: SkipReason;
  readonly error?: string;
  /**
   * SHA-256 of the secret of the unsubscribe link its mail carries (records from before
   * `token_hashes`); the secret is not stored.
   */
  readonly token_hash?: string;
  /**
   * The hashes of the links of every copy that may have gone out: a mail sent again after a
   * crash or an unanswered call carries a new link, and the first copy's goes on working.
   */
  readonly token_hashes?: readonly string[];
  /** Epoch s after which that link stops working. */
  readonly link_expires_at?: number;
  /** When the person unsubscribed through this link (ISO). */
  readonly unsubscribed_at?: string;
  /** When SES reported a permanent bounce of this mail (ISO), matched by its message id. */
  readonly bounced_at?: string;
  /** When SES reported a complaint about this mail (ISO), matched by its message id. */
  readonly complained_at?: string;
  /** First open SES reported of this mail (ISO; [engagement.recording]). */
  readonly opened_at?: string;
  /** First click SES reported of this mail (ISO). */
  readonly clicked_at?: string;
}

/** What the campaign's rules need of it when a recipient's turn comes. */
export interface RecheckContext {
  readonly lists: readonly number[];
  /** When the run started (ISO): who confirmed after it is not a recipient of it. */
  readonly startedAt: string;
}

/**
 * Whether a planned recipient still gets the mail, decided on the subscriber as stored when
 * their turn comes ([campaign.recheck]): gone (deleted, or the address now belongs to a newer
 * subscriber), no longer `C`, off every list of the issue, or confirmed after the send started
 * means a skip, with its reason.
 */
export function recheckRecipient(
  subscriberId: number,
  subscriber: SubscriberRecord | undefined,
  context: RecheckContext,
): { readonly send: true } | { readonly send: false; readonly reason: SkipReason } {
  if (!subscriber || subscriber.id !== subscriberId) return { send: false, reason: 'deleted' };
  switch (subscriber.status) {
    case 'U':
      return { send: false, reason: 'unsubscribed' };
    case 'B':
      return { send: false, reason: 'bounced' };
    case 'P':
      return { send: false, reason: 'complained' };
    case 'S':
      return { send: false, reason: 'not_confirmed' };
    case 'C':
      break;
  }
  if (!subscriber.lists.some((list) => context.lists.includes(list)))
    return { send: false, reason: 'off_lists' };
  if (subscriber.confirmed_at !== undefined && subscriber.confirmed_at > context.startedAt)
    return { send: false, reason: 'confirmed_after_start' };
  return { send: true };
}

/**
 * The lists under which a subscriber is planned ([campaign.plan]): every list of a confirmed
 * subscriber, each once, and none of anyone else. The list index holds exactly these, so a
 * page of it is a page of recipients (who joined after the run started lies beyond its range).
 */
export function listsPlannedUnder(
  subscriber: Pick<SubscriberRecord, 'status' | 'lists'> | undefined,
): number[] {
  if (subscriber?.status !== 'C') return [];
  return [...new Set(subscriber.lists)];
}
