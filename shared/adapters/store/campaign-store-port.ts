import type {
  CampaignRecord,
  PauseReason,
  RecountProgress,
} from '../../domain/campaign/campaign.ts';
import type { RecipientRecord, SkipReason } from '../../domain/campaign/recipient.ts';
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
  readonly recount: RecountProgress;
  readonly waiting_since: string;
  readonly fed_after: number;
  readonly fed_chunks: number;
  readonly done_chunks: number;
  readonly legacy_records: boolean;
  readonly records_spread: boolean;
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
  | 'plan_page'
  | 'fed_chunks'
  | 'done_chunks';

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
    /** Whether it waits for its turn: only one waiting is started ([campaign.overlap]). */
    readonly waiting?: boolean;
    /** The walk generation: work of an older walk changes nothing. */
    readonly walk?: number;
    /** How far its chunks are queued: a feed acts only on the place it started from. */
    readonly fedAfter?: number;
  };
  readonly set?: Partial<CampaignFields>;
  readonly add?: Partial<Record<CampaignCounter, number>>;
  readonly remove?: readonly (keyof CampaignFields)[];
  /** Lists the issue to keyless callers (sent and not private), or stops listing it. */
  readonly listPublicly?: boolean;
}

/** Where an issue's recipient records are: spread, and for older runs also in one partition. */
export interface RecordSpace {
  readonly newsletterId: number;
  /** Whether runs from before the records were spread wrote some of them. */
  readonly legacy: boolean;
}

/** A planned chunk of a run, as stored. */
export interface PlannedChunk {
  readonly run: number;
  /** Its first subscriber id: with the run, its key. */
  readonly first: number;
  readonly ids: readonly number[];
  /** Whether a worker finished it: everyone in it was sent, skipped or failed. */
  readonly done: boolean;
}

/** What a worker's claim on a chunk writes. */
export interface ChunkClaim {
  /** The invocation that claims: only it may release the chunk. */
  readonly owner: string;
  readonly now: number;
  readonly leaseUntil: number;
  /** When the links of its mails die (epoch s). */
  readonly linkExpiresAt: number;
  /** The links this attempt may send, as `chunkLinkEntry` gives them. */
  readonly entries: readonly string[];
}

/** How a claim went: taken (and how many times it was, this one included), or held by another. */
export type ChunkClaimResult =
  | { readonly claimed: true; readonly claims: number }
  | { readonly claimed: false; readonly heldUntil?: number };

/** The link hashes a chunk holds, for links whose record does not (yet) hold them. */
export interface ChunkLinks {
  readonly entries: readonly string[];
  readonly linkExpiresAt: number;
}

/** How a recipient's turn ended: a record is written only then ([campaign.claim]). */
export type RecipientOutcome =
  | {
      readonly state: 'sent';
      readonly messageId: string;
      /** The full hash of the link the mail carries, and when it dies (epoch s). */
      readonly tokenHash: string;
      readonly linkExpiresAt: number;
    }
  | { readonly state: 'failed'; readonly error: string }
  | { readonly state: 'skipped'; readonly reason: SkipReason };

/** Settled records of a run, counted. */
export interface SettledCounts {
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
}

/** Where a recount of an issue's records stands: a partition of theirs, and the last key read. */
export interface RecountCursor {
  /** The index of the partition among the issue's record partitions (the old one last). */
  readonly partition: number;
  /** The sort key of the last record read there; absent to start at its first. */
  readonly after?: string;
}

/** What one bounded step of a recount counted, and where the next starts (none: done). */
export interface RecountStep {
  readonly counts: SettledCounts;
  /** Records read, whatever their run or state. */
  readonly read: number;
  readonly next?: RecountCursor;
}

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

  /**
   * Which of these subscribers have a settled record of the issue (sent, skipped or failed):
   * whom a redelivered chunk, or a send to the new, leaves out.
   */
  settledRecipients(space: RecordSpace, subscriberIds: readonly number[]): Promise<Set<number>>;
  /** Writes a run's planned chunks (batched, unconditional: only the planner writes them). */
  putChunks(
    newsletterId: number,
    run: number,
    chunks: readonly { readonly first: number; readonly ids: readonly number[] }[],
  ): Promise<void>;
  /**
   * Claims a chunk for one worker with a lease, noting the links it may send: only when no
   * lease holds it. The planner wrote it first; a chunk nobody planned is not claimed.
   */
  claimChunk(
    newsletterId: number,
    run: number,
    first: number,
    claim: ChunkClaim,
  ): Promise<ChunkClaimResult>;
  /** Gives a chunk back, marked done when nobody in it is left to send. */
  releaseChunk(
    newsletterId: number,
    run: number,
    first: number,
    owner: string,
    done: boolean,
  ): Promise<void>;
  /** A run's chunks with first ids in (`after`, `upTo`], in id order, `limit` at most. */
  chunkPage(
    newsletterId: number,
    run: number,
    after: number,
    upTo: number,
    limit: number,
  ): Promise<{ readonly chunks: PlannedChunk[]; readonly more: boolean }>;
  chunkLinks(newsletterId: number, run: number, first: number): Promise<ChunkLinks | undefined>;
  /**
   * Records how a recipient's turn ended; false when a skip or a failure found a record there
   * already (it is counted once).
   */
  recordOutcome(
    newsletterId: number,
    run: number,
    subscriberId: number,
    outcome: RecipientOutcome,
    at: Date,
  ): Promise<boolean>;
  /** Recipient records with subscriber ids after `after`, in id order. */
  recipientPage(
    space: RecordSpace,
    after: number,
    limit: number,
  ): Promise<{ readonly recipients: RecipientRecord[]; readonly more: boolean }>;
  getRecipient(space: RecordSpace, subscriberId: number): Promise<RecipientRecord | undefined>;
  /** The settled records of a run, counted (reads every record of the issue). */
  countSettled(space: RecordSpace, run: number): Promise<SettledCounts>;
  /**
   * One bounded step of that count: from `from`, reading at most `maxItems` records, so that a
   * recount of any size goes on across invocations ([campaign.complete]).
   */
  countSettledFrom(
    space: RecordSpace,
    run: number,
    from: RecountCursor,
    maxItems: number,
  ): Promise<RecountStep>;
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

/** Where the records of this issue are. */
export function recordSpaceOf(
  campaign: Pick<CampaignRecord, 'id' | 'legacy_records' | 'records_spread' | 'run'>,
): RecordSpace {
  // A run started before the spread (and not since) wrote its records to the old partition.
  const runBefore = campaign.run > 0 && !campaign.records_spread;
  return { newsletterId: campaign.id, legacy: campaign.legacy_records || runBefore };
}
