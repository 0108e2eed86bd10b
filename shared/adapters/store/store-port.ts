import type { NewsletterIssueRecord } from '../../domain/newsletter-issue.ts';
import type { OnConfirm, OutboxMail, SubscribeRequest } from '../../domain/outbox.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import type { CountedChange } from '../../domain/subscriber-counts.ts';

/** What a token proves: the right to confirm, or to unsubscribe. */
export type TokenPurpose = 'confirm' | 'unsubscribe';

/** A token as stored: only its hash, the subscriber it belongs to, and when it dies. */
export interface TokenRecord {
  readonly hash: string;
  readonly email: string;
  readonly purpose: TokenPurpose;
  /** Epoch seconds; DynamoDB TTL removes the item some time after, reads check it at once. */
  readonly expires_at: number;
  /** Of an activation token: what confirming it applies. */
  readonly on_confirm?: OnConfirm;
}

/** Token items a subscriber write adds and removes in the same transaction. */
export interface TokenChanges {
  readonly put: readonly TokenRecord[];
  readonly delete: readonly string[];
}

/** What a subscriber write carries along in the same transaction. */
export interface SubscriberWrites {
  readonly tokens?: TokenChanges;
  /** Mails it starts (the outbox). */
  readonly outbox?: readonly OutboxMail[];
  /** The keyless subscribe request it settles, deleted with it. */
  readonly settlesRequest?: string;
}

/**
 * An attempt of the mailer: the mail, and for a mail with a link the subscriber with the fresh
 * token listed (written if it is still `current`, the record the mailer read) and the token
 * items.
 */
export type MailClaim =
  | { readonly mailId: string }
  | {
      readonly mailId: string;
      readonly subscriber: SubscriberRecord;
      readonly current: SubscriberRecord;
      readonly tokens: TokenChanges;
    };

/** Id sequences; each kind counts on its own. */
export type IdSequence = 'subscriber' | 'newsletter';

/**
 * Persistence of subscribers, tokens and newsletter issues. Writes are conditional: `false`
 * means the condition failed (the address exists, or someone else wrote first) and the caller
 * decides what that means. Unavailability is thrown as a DependencyError.
 */
export interface Store {
  nextId(sequence: IdSequence): Promise<number>;
  /** Adds changes the table's stream reported to the subscriber counts, each change once. */
  applyCountChanges(changes: readonly CountedChange[], now: Date): Promise<void>;
  getSubscriber(email: string): Promise<SubscriberRecord | undefined>;
  /** Creates the subscriber unless the address exists; never reads first. */
  createSubscriber(record: SubscriberRecord, writes?: SubscriberWrites): Promise<boolean>;
  /**
   * Replaces the subscriber if it is still `current` as read (its version and id), and keeps
   * the list index in step in the same write.
   */
  replaceSubscriber(
    record: SubscriberRecord,
    current: SubscriberRecord,
    writes?: SubscriberWrites,
  ): Promise<boolean>;
  /** Deletes the subscriber and its tokens if it still has the version read. */
  deleteSubscriber(record: SubscriberRecord): Promise<boolean>;
  getToken(hash: string): Promise<TokenRecord | undefined>;
  recentSubscribers(limit: number): Promise<SubscriberRecord[]>;
  putNewsletterIssue(issue: NewsletterIssueRecord): Promise<void>;
  getNewsletterIssue(id: number): Promise<NewsletterIssueRecord | undefined>;
  recentNewsletterIssues(limit: number, includeHidden: boolean): Promise<NewsletterIssueRecord[]>;
  /**
   * Counts one request against a fixed-window limit; false when the window is full. The
   * counter item expires through TTL after `expiresAt` (epoch s).
   */
  countRequest(key: string, limit: number, expiresAt: number): Promise<boolean>;

  /** Stores a keyless subscribe request (one unconditional write). */
  putSubscribeRequest(request: SubscribeRequest): Promise<void>;
  getSubscribeRequest(id: string): Promise<SubscribeRequest | undefined>;
  deleteSubscribeRequest(id: string): Promise<void>;

  getOutboxMail(id: string): Promise<OutboxMail | undefined>;
  /**
   * Claims a mail for one attempt: counts the attempt (only while the mail is still sendable)
   * and writes the subscriber with the token the mail will carry, if it still has the version
   * read. False when either condition failed.
   */
  claimMail(claim: MailClaim): Promise<boolean>;
  /** Marks a mail sent or skipped; it expires a day later. */
  finishMail(id: string, state: 'sent' | 'skipped', at: Date): Promise<void>;
  /** Records a failed attempt: queued again, with the error, listed among the failed mails. */
  failMail(id: string, error: string, at: Date): Promise<void>;
  /** Removes a mail (its subscriber is gone). */
  deleteMail(id: string): Promise<void>;
  /** Mails whose last attempt failed and that are not sent yet, newest first. */
  failedMails(limit: number): Promise<OutboxMail[]>;
  /** Queues a failed mail for another round of attempts; false when it was sent meanwhile. */
  requeueMail(id: string): Promise<boolean>;
}
