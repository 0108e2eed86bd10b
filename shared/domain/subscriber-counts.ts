import type { SubscriberRecord, SubscriberStatus } from './subscriber.ts';

/**
 * Subscriber counts kept per block of ids, so that a page of `GET /subscribers` finds its
 * place and its `X-WP-Total` without reading the whole base ([v2.paging-counts]).
 *
 * A subscriber adds 1 to one cell per filter it can match: its status, and its status on each
 * of its lists. Someone asked to confirm who may still expire (an `S` with `expires_at`) is
 * counted apart, by the hour they expire: DynamoDB's TTL deletes them without a transaction, so
 * their cells stop counting when their hour has passed rather than when TTL gets to them,
 * which is when every read already treats them as gone ([subscribe.unconfirmed-expiry]).
 */

/** Ids per block: a page reads every block's counts, then the index entries of one block. */
export const COUNT_BLOCK_IDS = 1000;

const HOUR_SECONDS = 3600;

/** Where a subscriber's counts live: their id's block, and for a pending one the hour. */
export type CountCell =
  | { readonly kind: 'kept'; readonly block: number }
  | { readonly kind: 'expiring'; readonly block: number; readonly hour: number };

/** One count item's change: the numbers to add to its attributes. */
export interface CountChange {
  readonly cell: CountCell;
  readonly add: Readonly<Record<string, number>>;
}

/** What one change of the table adds to the counts, and the id it is marked counted by. */
export interface CountedChange {
  /** The stream record's `eventID`: the same for every delivery of the record. */
  readonly eventId: string;
  readonly changes: readonly CountChange[];
}

/** What a page filters on, as far as counts can tell it. */
export interface CountFilter {
  readonly status?: SubscriberStatus;
  readonly list?: number;
}

const STATUSES: readonly SubscriberStatus[] = ['S', 'C', 'U', 'B', 'P'];

/** The block of ids a subscriber's counts are kept in. */
export function blockOf(id: number): number {
  return Math.floor(id / COUNT_BLOCK_IDS);
}

/** The first hour (epoch hours) in which an expiry at `expiresAt` (epoch seconds) has passed. */
export function expiryHour(expiresAt: number): number {
  return Math.ceil(expiresAt / HOUR_SECONDS);
}

/** The hour `now` falls in: expiring cells of this hour and later still count. */
export function currentHour(now: Date): number {
  return Math.floor(now.getTime() / 1000 / HOUR_SECONDS) + 1;
}

function cellOf(record: Pick<SubscriberRecord, 'id' | 'expires_at'>): CountCell {
  const block = blockOf(record.id);
  return record.expires_at === undefined
    ? { kind: 'kept', block }
    : { kind: 'expiring', block, hour: expiryHour(record.expires_at) };
}

/** The attributes a subscriber adds 1 to in their cell. */
function attributesOf(record: Pick<SubscriberRecord, 'status' | 'lists' | 'expires_at'>): string[] {
  const lists = [...new Set(record.lists)];
  // An expiring subscriber is always an `S`: their cell is theirs alone, no status needed.
  if (record.expires_at !== undefined) return ['n', ...lists.map((list) => `l${list}`)];
  return [`s${record.status}`, ...lists.map((list) => `l${list}s${record.status}`)];
}

const cellKey = (cell: CountCell): string =>
  cell.kind === 'kept' ? `kept:${cell.block}` : `expiring:${cell.block}:${cell.hour}`;

type Counted = Pick<SubscriberRecord, 'id' | 'status' | 'lists' | 'expires_at'>;

/**
 * What a subscriber change adds to the counts: `before` is what is counted now (undefined when
 * the subscriber is new, or was never counted), `after` what will be (undefined on deletion).
 * Attributes that cancel out are left out, and so are items left with nothing to add: a
 * change of name writes no count.
 */
export function countChanges(
  before: Counted | undefined,
  after: Counted | undefined,
): CountChange[] {
  const changes: CountChange[] = [];
  const apply = (record: Counted | undefined, sign: number): void => {
    if (!record) return;
    changes.push({
      cell: cellOf(record),
      add: Object.fromEntries(attributesOf(record).map((attribute) => [attribute, sign])),
    });
  };
  apply(before, -1);
  apply(after, 1);
  return mergeCountChanges(changes);
}

/**
 * Many changes as one per cell, summed: what a batch of subscriber changes adds to the counts.
 * Attributes that cancel out are left out, and so are cells left with nothing to add.
 */
export function mergeCountChanges(changes: readonly CountChange[]): CountChange[] {
  const merged = new Map<string, { cell: CountCell; add: Record<string, number> }>();
  for (const change of changes) {
    const key = cellKey(change.cell);
    const into = merged.get(key) ?? { cell: change.cell, add: {} };
    for (const [attribute, amount] of Object.entries(change.add))
      into.add[attribute] = (into.add[attribute] ?? 0) + amount;
    merged.set(key, into);
  }
  return [...merged.values()]
    .map(({ cell, add }) => ({
      cell,
      add: Object.fromEntries(Object.entries(add).filter(([, value]) => value !== 0)),
    }))
    .filter((change) => Object.keys(change.add).length > 0);
}

/** A block's counts as read: its kept item, and its expiring items of hours not yet passed. */
export interface BlockCounts {
  readonly kept: Readonly<Record<string, number>>;
  readonly expiring: readonly Readonly<Record<string, number>>[];
}

/** How many subscribers of a block match the filter. */
export function matchingIn(counts: BlockCounts, filter: CountFilter): number {
  const statuses = filter.status ? [filter.status] : STATUSES;
  const kept = statuses.reduce(
    (sum, status) =>
      sum +
      (counts.kept[filter.list === undefined ? `s${status}` : `l${filter.list}s${status}`] ?? 0),
    0,
  );
  if (filter.status !== undefined && filter.status !== 'S') return kept;
  const attribute = filter.list === undefined ? 'n' : `l${filter.list}`;
  return counts.expiring.reduce((sum, item) => sum + (item[attribute] ?? 0), kept);
}

/** Where a page starts: the block holding its first subscriber, and how many of it to skip. */
export interface PageStart {
  readonly block: number;
  readonly skip: number;
}

/**
 * Finds where the `offset`-th match lies, walking the blocks in the page's order; undefined
 * when there are no more than `offset` matches.
 */
export function pageStart(
  matches: ReadonlyMap<number, number>,
  offset: number,
  order: 'asc' | 'desc',
): PageStart | undefined {
  const blocks = [...matches.keys()].sort((a, b) => (order === 'asc' ? a - b : b - a));
  let before = 0;
  for (const block of blocks) {
    const here = matches.get(block) ?? 0;
    if (before + here > offset) return { block, skip: offset - before };
    before += here;
  }
  return undefined;
}

/** How many subscribers of all blocks match the filter. */
export function totalMatching(
  counts: ReadonlyMap<number, BlockCounts>,
  filter: CountFilter,
): number {
  let total = 0;
  for (const block of counts.values()) total += matchingIn(block, filter);
  return total;
}
