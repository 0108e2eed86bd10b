import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { DependencyError } from '../../domain/errors.ts';
import type { SubscriberRecord, SubscriberStatus } from '../../domain/subscriber.ts';
import { DynamoRequests } from './dynamo-requests.ts';
import { emailByIdQuery, fromSubscriberItem, toSubscriberItem } from './subscriber-item.ts';
import { INDEX, KEY, keys } from './table-design.ts';

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
  ) {
    this.#requests = new DynamoRequests(client);
  }

  /** The address of the subscriber with this id, if there is one: one Query of one item. */
  async emailOf(id: number): Promise<string | undefined> {
    const output = await this.#requests.send<{ Items?: Record<string, unknown>[] }>(
      'query:recent',
      new QueryCommand(emailByIdQuery(this.table, id)),
    );
    const email = output.Items?.[0]?.email;
    return typeof email === 'string' ? email : undefined;
  }

  /**
   * One page of subscribers matching the filters, and the number of matches. The index is
   * read in id order with the filters applied by DynamoDB, projecting the address only; the
   * walk goes to the end of the matches to count them (docs/storage.md states the cost).
   */
  async page(query: SubscriberPageQuery): Promise<SubscriberPage> {
    const names: Record<string, string> = {
      '#kind': INDEX.recent.partition,
      '#email': 'email',
    };
    const values: Record<string, unknown> = { ':kind': 'subscriber' };
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
    if (query.emailPrefix) {
      values[':prefix'] = query.emailPrefix;
      filters.push('begins_with(#email, :prefix)');
    }
    const input: QueryCommandInput = {
      TableName: this.table,
      IndexName: INDEX.recent.name,
      KeyConditionExpression: '#kind = :kind',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ProjectionExpression: '#email',
      ScanIndexForward: query.order === 'asc',
      ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    };
    const first = (query.page - 1) * query.perPage;
    const emails: string[] = [];
    let total = 0;
    for await (const items of this.#requests.queryPages('query:recent', input)) {
      for (const item of items) {
        if (total >= first && emails.length < query.perPage) emails.push(String(item.email));
        total += 1;
      }
    }
    return { emails, total };
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
              Item: toSubscriberItem({ ...to, tokens: {} }),
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': KEY.partition },
            },
          },
          {
            Delete: {
              TableName: this.table,
              Key: keys.subscriber(from.email),
              ConditionExpression: '#version = :expected AND #id = :id',
              ExpressionAttributeNames: { '#version': 'version', '#id': 'id' },
              ExpressionAttributeValues: { ':expected': from.version, ':id': from.id },
            },
          },
          ...Object.keys(from.tokens).map((hash) => ({
            Delete: { TableName: this.table, Key: keys.token(hash) },
          })),
        ],
      }),
    );
  }
}
