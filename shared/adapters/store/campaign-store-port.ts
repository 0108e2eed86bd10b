import type { CampaignRecord, PauseReason } from '../../domain/campaign/campaign.ts';
import type {
  RecipientRecord,
  RecipientState,
  SkipReason,
} from '../../domain/campaign/recipient.ts';
import type { NewsletterIssueStatus } from '../../domain/newsletter-issue.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';

/** The stored content of an issue: its parts, kept apart from the item its counts change on. */
export interface StoredContent {
  readonly html: string;
  readonly text: string;
  /** Whether the text part was derived from the HTML (derived again when the HTML changes). */
  readonly text_derived?: boolean;
}

/** A new issue: a draft, with its content when it has some. */
export interface NewIssue {
  readonly id: number;
  readonly subject: string;
  readonly created: string;
  readonly private: boolean;
  readonly url?: string;
  readonly lists: readonly number[];
}

/** What an edit of an issue changes; absent fields stay as they are. */
export interface IssueEdit {
  readonly subject?: string;
  readonly private?: boolean;
  /** The public web version's URL; null removes it. */
  readonly url?: string | null;
  readonly lists?: readonly number[];
  /** Lists or stops listing the issue to keyless callers (a sent issue made private or public). */
  readonly listPublicly?: boolean;
}

/** A page of the list index: members by id, each once whatever the lists they share. */
export interface MemberPage {
  readonly members: { readonly id: number; readonly email: string }[];
  /** The id the page reached: the next page starts after it. */
  readonly last: number;
  readonly more: boolean;
}

/** Fields of the campaign state an update may set. */
export interface CampaignFields {
  readonly status: NewsletterIssueStatus;
  readonly run: number;
  readonly started_at: string;
  readonly sent_at: string;
  readonly max_subscriber_id: number;
  readonly new_only: boolean;
  readonly plan_page: number;
  readonly plan_cursor: number;
  readonly plan_done: boolean;
  readonly total: number;
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
  readonly rate: number;
  readonly link_base: string;
  readonly progress_at: string;
  readonly active_at: string;
  readonly consecutive_failures: number;
  readonly pause_reason: PauseReason;
  readonly walk: number;
  readonly scheduled_at: string;
  readonly schedule_missed_at: string;
  readonly quota_checked_at: string;
  readonly recounted_at: string;
}

/** Counters an update may add to. */
export type CampaignCounter =
  | 'total'
  | 'sent'
  | 'skipped'
  | 'failed'
  | 'consecutive_failures'
  | 'run'
  | 'walk'
  | 'plan_page';

/**
 * One conditional update of a campaign's state: it applies only while the campaign still has
 * one of `expect.statuses` (and the run, plan page, walk or schedule time given), so every transition of the
 * lifecycle, every page of planning and every count is one conditional write.
 */
export interface CampaignUpdate {
  readonly expect: {
    readonly statuses: readonly NewsletterIssueStatus[];
    readonly run?: number;
    readonly planPage?: number;
    /** The time the issue is scheduled for: a firing schedule acts only on its own time. */
    readonly scheduledAt?: string;
    /** Whether the issue is private: a write that lists it decides on what it read. */
    readonly private?: boolean;
    /** Why it stands paused: a resume by the sweeper acts only on the pause it looked at. */
    readonly pauseReason?: PauseReason;
  };
  readonly set?: Partial<CampaignFields>;
  readonly add?: Partial<Record<CampaignCounter, number>>;
  readonly remove?: readonly (keyof CampaignFields)[];
  /** Lists the issue to keyless callers (sent and not private), or stops listing it. */
  readonly listPublicly?: boolean;
}

/** What a worker's claim on a recipient writes. */
export interface RecipientClaim {
  /** The invocation that claims: only it may settle or release the recipient. */
  readonly owner: string;
  readonly now: number;
  readonly leaseUntil: number;
  /** The hash of the unsubscribe link's secret the mail will carry, and when it dies. */
  readonly tokenHash: string;
  readonly linkExpiresAt: number;
}

/** What becomes of the link of an attempt given back unsent. */
export interface RecipientRelease {
  /** The hash the claim added. */
  readonly tokenHash?: string;
  /**
   * Whether SES may have taken the mail (a call that timed out): then its link stays valid,
   * since the copy may be in a mailbox.
   */
  readonly mayHaveBeenSent: boolean;
}

/** How one attempt ended for a claimed recipient. */
export type RecipientOutcome =
  | { readonly state: 'sent'; readonly messageId: string }
  | { readonly state: 'failed'; readonly error: string };

/** Outcomes a worker settled, to add to the campaign's counts. */
export interface Tally {
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
}

/**
 * Persistence of campaigns: the state on the newsletter item, its content, and one recipient
 * record per planned subscriber (docs/storage.md, "Campaigns"). Unavailability is thrown as a
 * DependencyError; a condition that failed is an answer (`false`, `undefined`).
 */
/** How a single-item read reads: strongly consistent unless a caller can do with less. */
export interface ReadOptions {
  /**
   * false reads eventually consistent, at half the read units: for the public web version,
   * where a change of privacy a second late does no harm and a large issue costs many units.
   */
  readonly consistent?: boolean;
}

export interface CampaignStore {
  getCampaign(id: number, options?: ReadOptions): Promise<CampaignRecord | undefined>;
  /** Creates a draft issue with its content (one transaction). */
  createIssue(issue: NewIssue, content: StoredContent | undefined): Promise<void>;
  /**
   * Edits an issue if it still has one of `statuses`, with its content replaced when given
   * (one transaction); the issue after the edit, or undefined when its status had moved on.
   */
  editIssue(
    id: number,
    edit: IssueEdit,
    content: StoredContent | undefined,
    statuses: readonly NewsletterIssueStatus[],
  ): Promise<CampaignRecord | undefined>;
  getContent(id: number, options?: ReadOptions): Promise<StoredContent | undefined>;
  /** The highest subscriber id issued so far. */
  lastSubscriberId(): Promise<number>;
  /** Applies an update if its expectations hold; the campaign after it, or undefined. */
  updateCampaign(id: number, update: CampaignUpdate): Promise<CampaignRecord | undefined>;

  /**
   * Confirmed members of any of these lists (the list index) with ids in (`after`, `upTo`],
   * oldest first, about `limit` of them.
   */
  memberPage(
    lists: readonly number[],
    after: number,
    upTo: number,
    limit: number,
  ): Promise<MemberPage>;
  /**
   * Whether the list index holds every subscriber: true on a table whose subscribers were all
   * written since it existed, or once `npx newsletter subscribers reindex` has run.
   */
  listIndexReady(): Promise<boolean>;
  /** The addresses of subscribers by id (the index); ids no subscriber has are absent. */
  emailsOf(subscriberIds: readonly number[]): Promise<Map<number, string>>;
  /** Subscribers as stored, read consistently, by address; absent ones are missing. */
  subscribersByEmail(emails: readonly string[]): Promise<Map<string, SubscriberRecord>>;

  /** Which of these subscribers already have a recipient record of the issue. */
  existingRecipients(newsletterId: number, subscriberIds: readonly number[]): Promise<Set<number>>;
  /**
   * Writes `pending` recipient records (batched, unconditional: only the planner writes them).
   * They last as long as their issue ([campaign.recipients-last]): no expiry.
   */
  putRecipients(newsletterId: number, run: number, subscriberIds: readonly number[]): Promise<void>;
  /** Recipient records with subscriber ids after `after`, in id order. */
  recipientPage(
    newsletterId: number,
    after: number,
    limit: number,
  ): Promise<{ readonly recipients: RecipientRecord[]; readonly more: boolean }>;
  getRecipient(newsletterId: number, subscriberId: number): Promise<RecipientRecord | undefined>;
  /** Claims a recipient for one attempt: only if pending, or claimed before with a lapsed lease. */
  claimRecipient(
    newsletterId: number,
    subscriberId: number,
    claim: RecipientClaim,
  ): Promise<boolean>;
  /** Settles a recipient without an attempt (their turn came and they no longer get it). */
  skipRecipient(
    newsletterId: number,
    subscriberId: number,
    reason: SkipReason,
    now: number,
  ): Promise<boolean>;
  /** Records how the attempt of `owner` ended; false when the claim was no longer its own. */
  settleRecipient(
    newsletterId: number,
    subscriberId: number,
    owner: string,
    outcome: RecipientOutcome,
    at: Date,
  ): Promise<boolean>;
  /** Gives a claimed recipient back, unsent (SES throttled, was away, or did not answer). */
  releaseRecipient(
    newsletterId: number,
    subscriberId: number,
    owner: string,
    link: RecipientRelease,
  ): Promise<void>;
  /**
   * Reserves `slots` send slots `spacingMs` apart for an issue's run, after every slot any
   * worker reserved before and not before `now`: the time of the first (epoch ms).
   */
  reservePace(
    newsletterId: number,
    run: number,
    slots: number,
    spacingMs: number,
    now: number,
  ): Promise<number>;
  /** How many recipient records of the issue are in each state (reads them all). */
  countRecipients(newsletterId: number): Promise<Record<RecipientState, number>>;
  /** Ids of the newest issues with one of these statuses (the `recent` index), newest first. */
  campaignsWithStatus(statuses: readonly NewsletterIssueStatus[], limit: number): Promise<number[]>;
  /**
   * Notes SES's bounce or complaint about a campaign mail on its recipient record, if the
   * record holds that mail's message id (once; a redelivered event changes nothing).
   */
  markFeedback(
    newsletterId: number,
    subscriberId: number,
    messageId: string,
    kind: 'bounced' | 'complained',
    at: Date,
  ): Promise<void>;
  /** Records that the person unsubscribed through this issue's link. */
  markUnsubscribed(newsletterId: number, subscriberId: number, at: Date): Promise<void>;
}
