/**
 * The single-table design, shared by the DynamoDB adapter, the CDK stack and the local runner
 * so that the table they create is the table the code queries. See docs/storage.md.
 */

/** Primary key attributes (both strings). */
export const KEY = { partition: 'pk', sort: 'sk' } as const;

/** Attribute DynamoDB TTL deletes expired items by (epoch seconds); used by token items. */
export const TTL_ATTRIBUTE = 'expires_at';

/** Attributes a listing returns; only these are copied into the indexes (INCLUDE projection). */
export const LISTED_ATTRIBUTES = [
  'email',
  'name',
  'surname',
  'gender',
  'lists',
  'profile',
  'status',
  'created',
  'updated',
  'consent',
  'subject',
  'sent_at',
  'url',
  'private',
  // A newsletter's sending counts, for keyed listings.
  'total',
  'sent',
] as const;

/** A global secondary index: its keys (the sort key's type) and the attributes it copies. */
export interface IndexDesign {
  readonly name: string;
  readonly partition: string;
  readonly sort: string;
  readonly sortType: 'N' | 'S';
  readonly attributes: readonly string[];
}

/** Global secondary indexes. */
export const INDEX = {
  /** Every subscriber (`recent_pk = "subscriber"`) and newsletter (`"newsletter"`), by id. */
  recent: {
    name: 'recent',
    partition: 'recent_pk',
    sort: 'id',
    sortType: 'N',
    attributes: LISTED_ATTRIBUTES,
  },
  /** Sparse: only newsletters that are sent and not private, for keyless callers. */
  publicRecent: {
    name: 'public_recent',
    partition: 'public_pk',
    sort: 'id',
    sortType: 'N',
    attributes: LISTED_ATTRIBUTES,
  },
  /**
   * Subscribers by address (newsletters have none, so they are not in it): a search by the
   * start of an address reads its matches only ([v2.paging-counts]). It copies what the
   * search filters and orders by, nothing else, so its entries stay small.
   */
  byEmail: {
    name: 'by_email',
    partition: 'recent_pk',
    sort: 'email',
    sortType: 'S',
    attributes: ['id', 'status', 'lists'],
  },
} as const satisfies Record<string, IndexDesign>;

/** Width a subscriber id is zero-padded to in a sort key, so keys sort by id. */
const RECIPIENT_ID_DIGITS = 15;

/**
 * What the table's stream carries: both images, so that its reader can tell what a change
 * changed (the subscriber counts, docs/storage.md "Counts from the stream").
 */
export const STREAM_VIEW = 'NEW_AND_OLD_IMAGES' as const;

/**
 * Partitions a list's membership index is spread over (by subscriber id): an import of a
 * million rows in ten minutes onto one list writes each of them about 100 entries a second,
 * 210 WRU in its transactions, a fifth of a partition's 1,000 (docs/storage.md, "Hot keys").
 */
export const MEMBER_SHARDS = 16;

/**
 * The shards of entries written before the index was spread over sixteen: a removal deletes
 * the entry there too. Readers read every partition of a list, so they find both.
 */
export const LEGACY_MEMBER_SHARDS = 4;

/**
 * Partitions an issue's recipient records are spread over (by subscriber id): at a write and
 * a later open, click or feedback update per mail, eight partitions take 2,000 mails a second
 * at half of DynamoDB's 1,000 writes a second per partition (docs/storage.md).
 */
export const RECIPIENT_SHARDS = 8;

/**
 * Partitions an issue's engagement counters are spread over: recorders each add to one, so no
 * item takes every open and click of an issue (docs/storage.md, "Opens and clicks").
 */
export const ENGAGEMENT_SHARDS = 32;

/**
 * Partitions the subscriber counts are spread over. The stream's reader adds each batch's
 * changes to one of them, chosen at random, so that readers of different stream shards seldom
 * hold the same item at once; a read sums them all.
 */
export const COUNT_SHARDS = 4;

/**
 * How long the mark that a stream record was counted is kept: longer than DynamoDB keeps a
 * stream record (24 hours), so a record delivered again is never counted twice.
 */
export const COUNTED_CHANGE_LIFETIME_SECONDS = 2 * 86_400;

/**
 * The attribute a subscriber item carries once the subscriber is in the counts: every write of
 * a subscriber sets it, and the stream's reader counts an image only when it has it, so one
 * stored before the counts is counted whole at its first change (or by `subscribers reindex`).
 */
export const COUNTED = 'counted';

/** Width a block or an hour is zero-padded to in a count item's sort key. */
const COUNT_DIGITS = 10;

/** Item keys; the prefixes keep every kind of item in its own key space. */
export const keys = {
  subscriber: (email: string) => ({
    [KEY.partition]: `SUBSCRIBER#${email}`,
    [KEY.sort]: 'subscriber',
  }),
  token: (hash: string) => ({ [KEY.partition]: `TOKEN#${hash}`, [KEY.sort]: 'token' }),
  newsletter: (id: number) => ({ [KEY.partition]: `NEWSLETTER#${id}`, [KEY.sort]: 'newsletter' }),
  /** An issue's content (HTML and text), apart from the item its status and counts change on. */
  newsletterContent: (id: number) => ({
    [KEY.partition]: `NEWSLETTER#${id}`,
    [KEY.sort]: 'content',
  }),
  /**
   * The account's send budget of one kind of mail (`bulk`: campaigns): the time line every
   * sender of it reserves its send slots from, so that together they keep one rate
   * ([campaign.budget]).
   */
  sendBudget: (name: string) => ({ [KEY.partition]: `BUDGET#${name}`, [KEY.sort]: 'pace' }),
  counter: (sequence: 'subscriber' | 'newsletter') => ({
    [KEY.partition]: `COUNTER#${sequence}`,
    [KEY.sort]: 'counter',
  }),
  rate: (key: string) => ({ [KEY.partition]: `RATE#${key}`, [KEY.sort]: 'rate' }),
  /** A named key of API v2: its permission and the hash of its secret, never the secret. */
  clientKey: (clientKey: string) => ({
    [KEY.partition]: `CLIENTKEY#${clientKey}`,
    [KEY.sort]: 'client_key',
  }),
  outbox: (id: string) => ({ [KEY.partition]: `OUTBOX#${id}`, [KEY.sort]: 'outbox' }),
  request: (id: string) => ({ [KEY.partition]: `REQUEST#${id}`, [KEY.sort]: 'request' }),
  /**
   * One shard of an issue's recipient records: a record per subscriber the issue reached (or
   * skipped, or failed), spread over RECIPIENT_SHARDS partitions by subscriber id.
   */
  recipients: (newsletterId: number, shard: number) => `RECIPIENTS#${newsletterId}#${shard}`,
  /** The one partition of the records of runs that started before they were spread. */
  legacyRecipients: (newsletterId: number) => `RECIPIENTS#${newsletterId}`,
  /** A planned chunk of a run: who it holds and its worker's lease (its links: chunkClaimLinks). */
  chunk: (newsletterId: number, run: number, first: number) => ({
    [KEY.partition]: keys.chunks(newsletterId),
    [KEY.sort]: chunkSortKey(run, first),
  }),
  chunks: (newsletterId: number) => `CHUNKS#${newsletterId}`,
  /**
   * The link hashes one claim of a chunk minted ([campaign.every-copy-link]): written once,
   * never grown, so neither it nor the chunk gets larger with each claim.
   */
  chunkClaimLinks: (newsletterId: number, run: number, first: number, claim: number) => ({
    [KEY.partition]: keys.chunkLinks(newsletterId),
    [KEY.sort]: `${chunkSortKey(run, first)}#${String(claim).padStart(6, '0')}`,
  }),
  chunkLinks: (newsletterId: number) => `CHUNKLINKS#${newsletterId}`,
  /**
   * One shard of an issue's engagement counters (docs/storage.md, "Opens and clicks"): many
   * recorders add to an issue at once, each to its own shard of ENGAGEMENT_SHARDS, and a report
   * sums them. Without a shard: the one partition of counts recorded before they were spread.
   */
  engagement: (newsletterId: number, shard?: number) =>
    shard === undefined ? `ENGAGEMENT#${newsletterId}` : `ENGAGEMENT#${newsletterId}#${shard}`,
  /** A shard's unique opens, unique clicks and all clicks of the issue. */
  engagementTotals: (newsletterId: number, shard?: number) => ({
    [KEY.partition]: keys.engagement(newsletterId, shard),
    [KEY.sort]: 'totals',
  }),
  /** A shard's first opens and clicks of an hour (`hourKey`: `YYYY-MM-DDTHH`, UTC). */
  engagementHour: (newsletterId: number, hourKey: string, shard?: number) => ({
    [KEY.partition]: keys.engagement(newsletterId, shard),
    [KEY.sort]: `hour#${hourKey}`,
  }),
  /** A shard's clicks of one link (by its address's hash), with the address. */
  engagementLink: (newsletterId: number, linkHash: string, shard?: number) => ({
    [KEY.partition]: keys.engagement(newsletterId, shard),
    [KEY.sort]: `link#${linkHash}`,
  }),
  /**
   * One mail's first open and first click, by the random token the mail carries
   * ([engagement.mail-token]): how a person is counted once without storing who.
   */
  mailEngagement: (token: string) => ({
    [KEY.partition]: `MAIL#${token}`,
    [KEY.sort]: 'engagement',
  }),
  /** A click SNS delivered, by its message id, so a copy of it counts no more (TTL). */
  clickSeen: (eventId: string) => ({
    [KEY.partition]: `CLICK#${eventId}`,
    [KEY.sort]: 'click',
  }),
  /** Whether per-person opens and clicks may be stored, for their erasure ([engagement.switch]). */
  personalEngagement: () => ({
    [KEY.partition]: 'ENGAGEMENT_PERSONAL',
    [KEY.sort]: 'state',
  }),
  /** Which issues a subscriber engaged with, so their deletion can erase it; then a tombstone. */
  engaged: (subscriberId: number) => ({
    [KEY.partition]: `ENGAGED#${subscriberId}`,
    [KEY.sort]: 'engaged',
  }),
  /**
   * The list index ([campaign.plan]): one item per confirmed subscriber and list, holding the
   * address, so that planning reads a list's members and nobody else (docs/storage.md).
   */
  member: (list: number, subscriberId: number) => ({
    [KEY.partition]: memberPartition(list, subscriberId % MEMBER_SHARDS),
    [KEY.sort]: recipientSortKey(subscriberId),
  }),
  /** Where an entry written before the spread to MEMBER_SHARDS lies, if it does. */
  legacyMember: (list: number, subscriberId: number) => ({
    [KEY.partition]: memberPartition(list, subscriberId % LEGACY_MEMBER_SHARDS),
    [KEY.sort]: recipientSortKey(subscriberId),
  }),
  /** That an event is on the bus: its publisher puts it once the bus took the event. */
  publishedEvent: (eventId: string) => ({
    [KEY.partition]: `EVENT#${eventId}`,
    [KEY.sort]: 'event',
  }),
  /** The mark that a stream record's change is in the counts (TTL'd, see its lifetime). */
  countedChange: (eventId: string) => ({
    [KEY.partition]: `COUNTED#${eventId}`,
    [KEY.sort]: 'counted',
  }),
  /**
   * Subscriber counts ([v2.paging-counts]): per shard, one item per block of ids for those who
   * stay, and one per block and expiry hour for those who may expire unconfirmed.
   */
  keptCount: (shard: number, block: number) => ({
    [KEY.partition]: countPartition(shard),
    [KEY.sort]: `kept#${String(block).padStart(COUNT_DIGITS, '0')}`,
  }),
  expiringCount: (shard: number, hour: number, block: number) => ({
    [KEY.partition]: countPartition(shard),
    [KEY.sort]: `expiring#${String(hour).padStart(COUNT_DIGITS, '0')}#${String(block).padStart(COUNT_DIGITS, '0')}`,
  }),
  recipient: (newsletterId: number, subscriberId: number) => ({
    [KEY.partition]: keys.recipients(newsletterId, subscriberId % RECIPIENT_SHARDS),
    [KEY.sort]: recipientSortKey(subscriberId),
  }),
  legacyRecipient: (newsletterId: number, subscriberId: number) => ({
    [KEY.partition]: keys.legacyRecipients(newsletterId),
    [KEY.sort]: recipientSortKey(subscriberId),
  }),
};

/** A chunk's sort key: its run, then its first subscriber id, so a run's chunks sort by id. */
export function chunkSortKey(run: number, first: number): string {
  return `${String(run).padStart(6, '0')}#${recipientSortKey(first)}`;
}

/** The sort key of a recipient record: its subscriber id, zero-padded so keys sort by id. */
export function recipientSortKey(subscriberId: number): string {
  return String(subscriberId).padStart(RECIPIENT_ID_DIGITS, '0');
}

/** The partition of one shard of the subscriber counts. */
export function countPartition(shard: number): string {
  return `COUNTS#${shard}`;
}

/** The first sort key of the expiring counts of this hour and later. */
export function expiringCountFrom(hour: number): string {
  return `expiring#${String(hour).padStart(COUNT_DIGITS, '0')}#`;
}

/** The partition of one shard of a list's membership index. */
export function memberPartition(list: number, shard: number): string {
  return `MEMBERS#${list}#${shard}`;
}
