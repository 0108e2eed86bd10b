import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { DependencyError } from '../../domain/errors.ts';
import type { SubscriberRecord, SubscriberStatus } from '../../domain/subscriber.ts';
import {
  COUNT_BLOCK_IDS,
  matchingIn,
  pageStart,
  totalMatching,
} from '../../domain/subscriber-counts.ts';
import { type CapacityListener, DynamoRequests } from './dynamo-requests.ts';
import { movedMembershipWrites } from './list-index.ts';
import { readBlockCounts } from './subscriber-counts.ts';
import {
  emailById,
  type IndexFilter,
  SUBSCRIBER_INDEX_SHARDS,
  subscribersByEmailPrefix,
  subscribersInIdOrder,
} from './subscriber-index.ts';
import { fromSubscriberItem, toCountedSubscriberItem } from './subscriber-item.ts';
import { KEY, keys } from './table-design.ts';

/** Most index entries one request of a page reads (about 250 KB). */
const MAX_ENTRIES_PER_READ = 1000;

/** What a page of API v2's subscriber listing asks for. */
export interface SubscriberPageQuery {
  /** 1-based. */
  readonly page: number;
  readonly perPage: number;
  /** `desc`: newest first (the default); `asc`: by id, oldest first. */
  readonly order: 'asc' | 'desc';
  readonly status?: SubscriberStatus;
  readonly list?: number;
  /** Addresses starting with this (lower case). */
  readonly emailPrefix?: string;
}

/** One page: the addresses on it, in order, and how many match in all. */
export interface SubscriberPage {
  readonly emails: readonly string[];
  readonly total: number;
}

/**
 * Finding subscribers by id and by page for API v2 (docs/storage.md, "API v2"), and moving a
 * subscriber to another address. Reads go through the `recent` index, which holds the listed
 * attributes (address, status, lists); the records themselves are read by address after.
 */
export class DynamoSubscriberDirectory {
  readonly #requests: DynamoRequests;

  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
    /** Told the capacity each request consumed (the benchmarks count with it). */
    onCapacity?: CapacityListener,
  ) {
    this.#requests = new DynamoRequests(client, onCapacity);
  }

  /** The address of the subscriber with this id, if there is one: one Query of one item. */
  emailOf(id: number): Promise<string | undefined> {
    return emailById(this.#requests, this.table, id);
  }

  /**
   * One page of subscribers matching the filters, and the number of matches
   * ([v2.paging-counts]). A search by address reads the `by_email` index's matches only; other
   * pages read the subscriber counts to find the block of ids the page starts in and the total,
   * then the `recent` index from that block on. A table whose subscribers are not all counted
   * yet (before `subscribers reindex`) is walked to the end instead. docs/storage.md states the
   * reads of each.
   */
  async page(query: SubscriberPageQuery, now: Date): Promise<SubscriberPage> {
    if (query.emailPrefix) return this.#searchPage(query, query.emailPrefix);
    if (!(await this.#countsReady())) return this.#walkPage(query);
    const counts = await readBlockCounts(this.#requests, this.table, now);
    const filter = {
      ...(query.status ? { status: query.status } : {}),
      ...(query.list === undefined ? {} : { list: query.list }),
    };
    const matches = new Map(
      [...counts].map(([block, found]) => [block, matchingIn(found, filter)]),
    );
    const total = [...matches.values()].reduce((sum, count) => sum + count, 0);
    const start = pageStart(matches, (query.page - 1) * query.perPage, query.order);
    if (!start) return { emails: [], total };
    const from = start.block * COUNT_BLOCK_IDS;
    // Each Query reads about its partition's share of what the rest of the page needs, by the
    // block's share of matches: a Query without a limit would read a whole megabyte of the index.
    const block = counts.get(start.block);
    const share = block ? matchingIn(block, {}) / Math.max(1, matches.get(start.block) ?? 1) : 1;
    const wanted = start.skip + query.perPage;
    const emails: string[] = [];
    let skip = start.skip;
    for await (const item of subscribersInIdOrder(this.#requests, this.table, {
      order: query.order,
      ...(query.order === 'asc' ? { from } : { to: from + COUNT_BLOCK_IDS - 1 }),
      ...this.#filter(query),
      fields: ['email'],
      perQuery: Math.min(
        MAX_ENTRIES_PER_READ,
        Math.ceil((wanted * share) / SUBSCRIBER_INDEX_SHARDS) + 2,
      ),
    })) {
      if (skip > 0) skip -= 1;
      else emails.push(String(item.email));
      if (emails.length >= query.perPage) break;
    }
    return { emails, total };
  }

  /**
   * The confirmed members of each of these lists, from the subscriber counts; undefined while
   * the table is not all counted ([v2.list-members]).
   */
  async confirmedMembers(
    lists: readonly number[],
    now: Date,
  ): Promise<Map<number, number> | undefined> {
    if (!(await this.#countsReady())) return undefined;
    const counts = await readBlockCounts(this.#requests, this.table, now);
    return new Map(lists.map((list) => [list, totalMatching(counts, { status: 'C', list })]));
  }

  /** Whether every subscriber is in the counts (set with the list index's mark). */
  async #countsReady(): Promise<boolean> {
    const output = await this.#requests.send<{ Item?: Record<string, unknown> }>(
      'countsReady',
      new GetCommand({
        TableName: this.table,
        Key: keys.counter('subscriber'),
        ProjectionExpression: 'subscriber_counts',
      }),
    );
    return output.Item?.subscriber_counts === true;
  }

  /** The status and list filters of a listing, as a filter on the index's entries. */
  #filter(query: Pick<SubscriberPageQuery, 'status' | 'list'>): { filter?: IndexFilter } {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const filters: string[] = [];
    if (query.status) {
      names['#status'] = 'status';
      values[':status'] = query.status;
      filters.push('#status = :status');
    }
    if (query.list !== undefined) {
      names['#lists'] = 'lists';
      values[':list'] = query.list;
      filters.push('contains(#lists, :list)');
    }
    return filters.length === 0
      ? {}
      : { filter: { expression: filters.join(' AND '), names, values } };
  }

  /** The walk of a table not yet counted: every match is read, to count them. */
  async #walkPage(query: SubscriberPageQuery): Promise<SubscriberPage> {
    const first = (query.page - 1) * query.perPage;
    const emails: string[] = [];
    let total = 0;
    for await (const item of subscribersInIdOrder(this.#requests, this.table, {
      order: query.order,
      ...this.#filter(query),
      fields: ['email'],
      perQuery: MAX_ENTRIES_PER_READ,
    })) {
      if (total >= first && emails.length < query.perPage) emails.push(String(item.email));
      total += 1;
    }
    return { emails, total };
  }

  /**
   * A search by the start of an address: the `by_email` index's matches, filtered by status
   * and list, then put in the page's id order (the cost follows the matches, not the base).
   */
  async #searchPage(query: SubscriberPageQuery, prefix: string): Promise<SubscriberPage> {
    const found = await subscribersByEmailPrefix(
      this.#requests,
      this.table,
      prefix,
      this.#filter(query).filter,
    );
    found.sort((a, b) => (query.order === 'asc' ? a.id - b.id : b.id - a.id));
    const first = (query.page - 1) * query.perPage;
    return {
      emails: found.slice(first, first + query.perPage).map((match) => match.email),
      total: found.length,
    };
  }

  /** The records of these addresses (at most 100: one BatchGetItem), in the order given. */
  async records(emails: readonly string[]): Promise<SubscriberRecord[]> {
    const found = new Map<string, SubscriberRecord>();
    let wanted: Record<string, unknown>[] = emails.map((email) => keys.subscriber(email));
    // Keys DynamoDB left unprocessed (throttling) are asked for again, a few times.
    for (let round = 0; wanted.length > 0 && round < 5; round += 1) {
      const output = await this.#requests.send<{
        Responses?: Record<string, Record<string, unknown>[]>;
        UnprocessedKeys?: Record<string, { Keys?: Record<string, unknown>[] }>;
      }>(
        'getSubscribers',
        new BatchGetCommand({ RequestItems: { [this.table]: { Keys: wanted } } }),
      );
      for (const item of output.Responses?.[this.table] ?? []) {
        const record = fromSubscriberItem(item);
        found.set(record.email, record);
      }
      wanted = output.UnprocessedKeys?.[this.table]?.Keys ?? [];
    }
    if (wanted.length > 0) throw new DependencyError('dynamodb');
    // A subscriber deleted between the index read and this one is simply not on the page.
    return emails.flatMap((email) => {
      const record = found.get(email);
      return record ? [record] : [];
    });
  }

  /**
   * Moves a subscriber to another address in one transaction: the record under the new
   * address (only if that address is free), the old one deleted (only if it still has the
   * version read) with its token items, whose links named the old address. False when either
   * condition failed.
   */
  move(from: SubscriberRecord, to: SubscriberRecord): Promise<boolean> {
    return this.#requests.conditional(
      'moveSubscriber',
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.table,
              Item: toCountedSubscriberItem({ ...to, tokens: {} }),
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': KEY.partition },
            },
          },
          {
            Delete: {
              TableName: this.table,
              Key: keys.subscriber(from.email),
              ConditionExpression: `#version = :expected AND #id = :id`,
              ExpressionAttributeNames: { '#version': 'version', '#id': 'id' },
              ExpressionAttributeValues: { ':expected': from.version, ':id': from.id },
            },
          },
          ...Object.keys(from.tokens).map((hash) => ({
            Delete: { TableName: this.table, Key: keys.token(hash) },
          })),
          // The same id: the list index entries change as for any change (the stream's reader
          // moves the counts: the old item's removal and the new one's insert).
          ...movedMembershipWrites(this.table, from, to),
        ],
      }),
    );
  }
}
