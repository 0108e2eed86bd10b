import type { NewsletterIssueRecord } from '../../domain/newsletter-issue.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';

/** What a token proves: the right to confirm, or to unsubscribe. */
export type TokenPurpose = 'confirm' | 'unsubscribe';

/** A token as stored: only its hash, the subscriber it belongs to, and when it dies. */
export interface TokenRecord {
  readonly hash: string;
  readonly email: string;
  readonly purpose: TokenPurpose;
  /** Epoch seconds; DynamoDB TTL removes the item some time after, reads check it at once. */
  readonly expires_at: number;
}

/** Token items a subscriber write adds and removes in the same transaction. */
export interface TokenChanges {
  readonly put: readonly TokenRecord[];
  readonly delete: readonly string[];
}

/** Id sequences; each kind counts on its own. */
export type IdSequence = 'subscriber' | 'newsletter';

/**
 * Persistence of subscribers, tokens and newsletter issues. Writes are conditional: `false`
 * means the condition failed (the address exists, or someone else wrote first) and the caller
 * decides what that means. Unavailability is thrown as a DependencyError.
 */
export interface Store {
  nextId(sequence: IdSequence): Promise<number>;
  getSubscriber(email: string): Promise<SubscriberRecord | undefined>;
  /** Creates the subscriber unless the address exists; never reads first. */
  createSubscriber(record: SubscriberRecord, tokens: TokenChanges): Promise<boolean>;
  /** Replaces the subscriber if it still has `expectedVersion`. */
  replaceSubscriber(
    record: SubscriberRecord,
    expectedVersion: number,
    tokens: TokenChanges,
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
}
