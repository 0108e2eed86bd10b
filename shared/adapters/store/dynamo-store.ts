import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isPublicIssue, type NewsletterIssueRecord } from '../../domain/newsletter-issue.ts';
import type { OnConfirm, OutboxMail, SubscribeRequest } from '../../domain/outbox.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import type { CountedChange } from '../../domain/subscriber-counts.ts';
import {
  type CapacityListener,
  CONDITION_FAILED,
  type DocumentCommand,
  DynamoRequests,
  epochSeconds,
} from './dynamo-requests.ts';
import { IdBlocks } from './id-blocks.ts';
import { membershipWrites } from './list-index.ts';
import type {
  IdSequence,
  MailClaim,
  Store,
  SubscriberWrites,
  TokenChanges,
  TokenRecord,
} from './store-port.ts';
import { applyCountChanges } from './subscriber-counts.ts';
import {
  newestSubscribers,
  SUBSCRIBER_INDEX_SHARDS,
  subscriberIndexPartition,
  subscribersInIdOrder,
} from './subscriber-index.ts';
import { fromSubscriberItem, toCountedSubscriberItem } from './subscriber-item.ts';
import { COUNTED, INDEX, KEY, keys, TTL_ATTRIBUTE } from './table-design.ts';

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;
type Item = Record<string, unknown>;

const NEWSLETTER = 'newsletter';
/** The most subscriber ids one store reserves at once, and how long it uses a block. */
const SUBSCRIBER_ID_BLOCK = 64;
const SUBSCRIBER_ID_BLOCK_LIFETIME_MS = 1_000;

/** `recent` index partition of mails whose last attempt failed (sparse; the CLI lists them). */
const FAILED_MAIL = 'mail_failed';
const DAY_SECONDS = 86_400;
/** An unsent mail or request is kept this long at most (a safety net; both settle in seconds). */
const UNSETTLED_LIFETIME_SECONDS = 14 * DAY_SECONDS;
/** How long a mailer's claim on a mail holds: longer than the mailer's timeout (60 s). */
const CLAIM_LIFETIME_MS = 90_000;

/** Which end of the id order a full listing starts at, and how many items per Query page. */
export interface ListingOptions {
  readonly order?: 'oldest-first' | 'newest-first';
  /**
   * About how many items the caller takes at a time: each partition a listing reads is asked
   * for its share of them per Query, so a caller that stops reads little past where it stopped.
   */
  readonly pageSize?: number;
  /** Only items with ids above this one (oldest first: where the previous read stopped). */
  readonly after?: number;
}

export type { CapacityListener } from './dynamo-requests.ts';

/** The DynamoDB adapter of the single-table design (docs/storage.md). */
export class DynamoStore implements Store {
  protected readonly requests: DynamoRequests;
  protected readonly table: string;

  constructor(client: DynamoDBDocumentClient, table: string, onCapacity?: CapacityListener) {
    this.requests = new DynamoRequests(client, onCapacity);
    this.table = table;
  }

  /** Sends a command, reporting capacity and translating failures to our vocabulary. */
  protected send<T>(operation: string, command: DocumentCommand): Promise<T> {
    return this.requests.send<T>(operation, command);
  }

  /** Runs a conditional write; `false` when its condition (or a transaction's) failed. */
  protected conditional(operation: string, command: DocumentCommand): Promise<boolean> {
    return this.requests.conditional(operation, command);
  }

  /**
   * The next id. Subscriber ids come from blocks this store reserves as sign-ups come in
   * (one id at a time when they are few, up to 64 when they are many, each block used for at
   * most a second), so a launch's thousands of sign-ups a second are tens of writes a second to
   * the counter item, not thousands (docs/storage.md, "Ids").
   */
  async nextId(sequence: IdSequence): Promise<number> {
    if (sequence === 'subscriber') return this.subscriberIds.next();
    return this.reserveIds(sequence, 1);
  }

  // Not a #private field: tests stand in for one method of a store with Object.create(store).
  private readonly subscriberIds = new IdBlocks((count) => this.reserveIds('subscriber', count), {
    size: SUBSCRIBER_ID_BLOCK,
    adaptive: true,
    lifetimeMs: SUBSCRIBER_ID_BLOCK_LIFETIME_MS,
  });

  /**
   * Reserves `count` consecutive ids with one atomic counter write and returns the first, so
   * bulk imports pay one write per block. Unused ids of a block stay unused (ids are unique and
   * never reused, not gap-free).
   */
  async reserveIds(sequence: IdSequence, count: number): Promise<number> {
    if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be at least 1');
    const output = await this.send<{ Attributes?: Item }>(
      'reserveIds',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.counter(sequence),
        UpdateExpression: 'ADD next_id :count',
        ExpressionAttributeValues: { ':count': count },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const first = Number(output.Attributes?.next_id) - count + 1;
    // The first subscriber of a table: every subscriber from here on is written with their
    // list index entries, so the index is complete (an older table is indexed by `npx
    // newsletter subscribers reindex`, which sets the same mark).
    if (sequence === 'subscriber' && first === 1) await this.markListIndexReady();
    return first;
  }

  /**
   * Brings a subscriber written before the list index, the counts or the index's spread up to
   * date, if the subscriber is still as read (one transaction): their list index entries, the
   * counted mark (the stream's reader then counts them whole), and their spread index
   * partition. A change meanwhile wrote all three itself, and a stale record is not put back.
   */
  async indexSubscriber(record: SubscriberRecord): Promise<boolean> {
    const update = {
      TableName: this.table,
      Key: keys.subscriber(record.email),
      UpdateExpression: 'SET #counted = :true, #partition = :partition',
      ConditionExpression: '#version = :expected AND #id = :id',
      ExpressionAttributeNames: {
        '#version': 'version',
        '#id': 'id',
        '#counted': COUNTED,
        '#partition': INDEX.recent.partition,
      },
      ExpressionAttributeValues: {
        ':expected': record.version,
        ':id': record.id,
        ':true': true,
        ':partition': subscriberIndexPartition(record.id),
      },
    };
    return this.conditional(
      'indexSubscriber',
      new TransactWriteCommand({
        TransactItems: [{ Update: update }, ...membershipWrites(this.table, undefined, record)],
      }),
    );
  }

  /**
   * Marks the list index and the subscriber counts complete: campaigns may plan from the one
   * ([campaign.plan]) and pages count with the other ([v2.paging-counts]).
   */
  async markListIndexReady(): Promise<void> {
    await this.send(
      'markListIndexReady',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.counter('subscriber'),
        UpdateExpression: 'SET list_index = :ready, subscriber_counts = :ready',
        ExpressionAttributeValues: { ':ready': true },
      }),
    );
  }

  applyCountChanges(changes: readonly CountedChange[], now: Date): Promise<void> {
    return applyCountChanges(this.requests, this.table, changes, now);
  }

  async getSubscriber(email: string): Promise<SubscriberRecord | undefined> {
    const output = await this.send<{ Item?: Item }>(
      'getSubscriber',
      new GetCommand({ TableName: this.table, Key: keys.subscriber(email), ConsistentRead: true }),
    );
    return output.Item ? fromSubscriberItem(output.Item) : undefined;
  }

  async createSubscriber(
    record: SubscriberRecord,
    writes: SubscriberWrites = {},
  ): Promise<boolean> {
    const put = {
      TableName: this.table,
      Item: toCountedSubscriberItem(record),
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': KEY.partition },
    };
    const along = [...this.writesAlong(writes), ...membershipWrites(this.table, undefined, record)];
    if (along.length === 0) return this.conditional('createSubscriber', new PutCommand(put));
    return this.conditional(
      'createSubscriber',
      new TransactWriteCommand({ TransactItems: [{ Put: put }, ...along] }),
    );
  }

  async replaceSubscriber(
    record: SubscriberRecord,
    current: SubscriberRecord,
    writes: SubscriberWrites = {},
  ): Promise<boolean> {
    const put = {
      TableName: this.table,
      Item: toCountedSubscriberItem(record),
      // The id too: a deleted address created again starts over at version 1, and a writer
      // that read the old life must not overwrite the new one.
      ConditionExpression: `#version = :expected AND #id = :id`,
      ExpressionAttributeNames: { '#version': 'version', '#id': 'id' },
      ExpressionAttributeValues: { ':expected': current.version, ':id': current.id },
    };
    // The condition makes `current` exactly what is stored: the index changes from it.
    const along = [...this.writesAlong(writes), ...membershipWrites(this.table, current, record)];
    if (along.length === 0) return this.conditional('replaceSubscriber', new PutCommand(put));
    return this.conditional(
      'replaceSubscriber',
      new TransactWriteCommand({ TransactItems: [{ Put: put }, ...along] }),
    );
  }

  /** The items a subscriber write carries: tokens, outbox mails, the request it settles. */
  private writesAlong(writes: SubscriberWrites): TransactItems {
    return [
      ...this.tokenWrites(writes.tokens ?? { put: [], delete: [] }),
      ...(writes.outbox ?? []).map((mail) => ({
        Put: {
          TableName: this.table,
          Item: {
            ...keys.outbox(mail.mail_id),
            ...mail,
            [TTL_ATTRIBUTE]: epochSeconds(new Date(mail.created)) + UNSETTLED_LIFETIME_SECONDS,
          },
        },
      })),
      ...(writes.settlesRequest
        ? [{ Delete: { TableName: this.table, Key: keys.request(writes.settlesRequest) } }]
        : []),
    ];
  }

  async deleteSubscriber(record: SubscriberRecord): Promise<boolean> {
    const items: TransactItems = [
      {
        Delete: {
          TableName: this.table,
          Key: keys.subscriber(record.email),
          ConditionExpression: `#version = :expected AND #id = :id`,
          ExpressionAttributeNames: { '#version': 'version', '#id': 'id' },
          ExpressionAttributeValues: { ':expected': record.version, ':id': record.id },
        },
      },
      ...this.tokenWrites({ put: [], delete: Object.keys(record.tokens) }),
      ...membershipWrites(this.table, record, undefined),
    ];
    return this.conditional('deleteSubscriber', new TransactWriteCommand({ TransactItems: items }));
  }

  private tokenWrites(tokens: TokenChanges): TransactItems {
    return [
      ...tokens.put.map((token) => ({
        Put: {
          TableName: this.table,
          Item: {
            ...keys.token(token.hash),
            email: token.email,
            purpose: token.purpose,
            [TTL_ATTRIBUTE]: token.expires_at,
            ...(token.on_confirm ? { on_confirm: token.on_confirm } : {}),
          },
        },
      })),
      ...tokens.delete.map((hash) => ({
        Delete: { TableName: this.table, Key: keys.token(hash) },
      })),
    ];
  }

  async getToken(hash: string): Promise<TokenRecord | undefined> {
    const output = await this.send<{ Item?: Item }>(
      'getToken',
      new GetCommand({ TableName: this.table, Key: keys.token(hash), ConsistentRead: true }),
    );
    const item = output.Item;
    if (!item) return undefined;
    return {
      hash,
      email: String(item.email),
      purpose: item.purpose === 'unsubscribe' ? 'unsubscribe' : 'confirm',
      expires_at: Number(item[TTL_ATTRIBUTE]),
      ...(item.on_confirm ? { on_confirm: item.on_confirm as OnConfirm } : {}),
    };
  }

  async recentSubscribers(limit: number): Promise<SubscriberRecord[]> {
    const items = await newestSubscribers(this.requests, this.table, limit);
    return items.map(fromSubscriberItem);
  }

  async putNewsletterIssue(issue: NewsletterIssueRecord): Promise<void> {
    await this.send(
      'putNewsletterIssue',
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.newsletter(issue.id),
          [INDEX.recent.partition]: NEWSLETTER,
          ...(isPublicIssue(issue) ? { [INDEX.publicRecent.partition]: NEWSLETTER } : {}),
          ...issue,
        },
      }),
    );
  }

  async getNewsletterIssue(id: number): Promise<NewsletterIssueRecord | undefined> {
    const output = await this.send<{ Item?: Item }>(
      'getNewsletterIssue',
      new GetCommand({ TableName: this.table, Key: keys.newsletter(id), ConsistentRead: true }),
    );
    return output.Item ? fromNewsletterItem(output.Item) : undefined;
  }

  async recentNewsletterIssues(
    limit: number,
    includeHidden: boolean,
  ): Promise<NewsletterIssueRecord[]> {
    const index = includeHidden ? INDEX.recent : INDEX.publicRecent;
    const items = await this.queryRecent(index, NEWSLETTER, limit);
    return items.map(fromNewsletterItem);
  }

  async countRequest(key: string, limit: number, expiresAt: number): Promise<boolean> {
    return this.conditional(
      'countRequest',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.rate(key),
        UpdateExpression: 'ADD #count :one SET #expires = :expires',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'request_count', '#expires': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': expiresAt },
      }),
    );
  }

  async putSubscribeRequest(request: SubscribeRequest): Promise<void> {
    await this.send(
      'putSubscribeRequest',
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.request(request.request_id),
          ...request,
          [TTL_ATTRIBUTE]: epochSeconds(new Date(request.received_at)) + UNSETTLED_LIFETIME_SECONDS,
        },
      }),
    );
  }

  async getSubscribeRequest(id: string): Promise<SubscribeRequest | undefined> {
    const output = await this.send<{ Item?: Item }>(
      'getSubscribeRequest',
      new GetCommand({ TableName: this.table, Key: keys.request(id), ConsistentRead: true }),
    );
    const item = output.Item;
    if (!item) return undefined;
    return {
      request_id: id,
      params: item.params as SubscribeRequest['params'],
      ...(typeof item.api_root === 'string' ? { api_root: item.api_root } : {}),
      ...(typeof item.client_ip === 'string' ? { client_ip: item.client_ip } : {}),
      ...(typeof item.user_agent === 'string' ? { user_agent: item.user_agent } : {}),
      received_at: String(item.received_at),
    };
  }

  async deleteSubscribeRequest(id: string): Promise<void> {
    await this.send(
      'deleteSubscribeRequest',
      new DeleteCommand({ TableName: this.table, Key: keys.request(id) }),
    );
  }

  async getOutboxMail(id: string): Promise<OutboxMail | undefined> {
    const output = await this.send<{ Item?: Item }>(
      'getOutboxMail',
      new GetCommand({ TableName: this.table, Key: keys.outbox(id), ConsistentRead: true }),
    );
    return output.Item ? fromOutboxItem(output.Item) : undefined;
  }

  async claimMail(claim: MailClaim): Promise<boolean> {
    const now = Date.now();
    const attempt = {
      TableName: this.table,
      Key: keys.outbox(claim.mailId),
      UpdateExpression: 'SET #state = :sending, attempts = attempts + :one, claimed_at = :now',
      // A claim lasts longer than the mailer may run: an attempt that died mid-send is taken
      // over once its claim is stale, a running one never.
      ConditionExpression:
        '#state IN (:queued, :requeued) OR (#state = :sending AND claimed_at < :stale)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':sending': 'sending',
        ':queued': 'queued',
        ':requeued': 'requeued',
        ':one': 1,
        ':now': now,
        ':stale': now - CLAIM_LIFETIME_MS,
      },
    };
    if (!('subscriber' in claim)) {
      return this.conditional('claimMail', new UpdateCommand(attempt));
    }
    return this.conditional(
      'claimMail',
      new TransactWriteCommand({
        TransactItems: [
          { Update: attempt },
          {
            Put: {
              TableName: this.table,
              Item: toCountedSubscriberItem(claim.subscriber),
              ConditionExpression: `#version = :expected AND #id = :id`,
              ExpressionAttributeNames: { '#version': 'version', '#id': 'id' },
              ExpressionAttributeValues: {
                ':expected': claim.current.version,
                ':id': claim.current.id,
              },
            },
          },
          ...this.tokenWrites(claim.tokens),
          ...membershipWrites(this.table, claim.current, claim.subscriber),
        ],
      }),
    );
  }

  async finishMail(id: string, state: 'sent' | 'skipped', at: Date): Promise<void> {
    await this.send(
      'finishMail',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.outbox(id),
        // A settled mail keeps no address: it is there for the operator's counts, not a record
        // of the person.
        UpdateExpression: `SET #state = :state, #expires = :expires${state === 'sent' ? ', sent_at = :at' : ''} REMOVE last_error, #failed, #order, email, link_base, on_confirm`,
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: {
          '#pk': KEY.partition,
          '#state': 'state',
          '#expires': TTL_ATTRIBUTE,
          '#failed': INDEX.recent.partition,
          '#order': INDEX.recent.sort,
        },
        ExpressionAttributeValues: {
          ':state': state,
          ':expires': epochSeconds(at) + DAY_SECONDS,
          ...(state === 'sent' ? { ':at': at.toISOString() } : {}),
        },
      }),
    ).catch((error: unknown) => {
      // Deleted meanwhile (its subscriber was): nothing left to mark.
      if (!(error instanceof Error && CONDITION_FAILED.has(error.name))) throw error;
    });
  }

  async failMail(id: string, error: string, at: Date): Promise<void> {
    await this.conditional(
      'failMail',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.outbox(id),
        UpdateExpression:
          'SET #state = :queued, last_error = :error, #failed = :failed, #order = :order',
        ConditionExpression: 'attribute_exists(#pk) AND #state <> :sent',
        ExpressionAttributeNames: {
          '#pk': KEY.partition,
          '#state': 'state',
          '#failed': INDEX.recent.partition,
          '#order': INDEX.recent.sort,
        },
        ExpressionAttributeValues: {
          ':queued': 'queued',
          ':sent': 'sent',
          ':error': error.slice(0, 500),
          ':failed': FAILED_MAIL,
          ':order': at.getTime(),
        },
      }),
    );
  }

  async deleteMail(id: string): Promise<void> {
    await this.send(
      'deleteMail',
      new DeleteCommand({ TableName: this.table, Key: keys.outbox(id) }),
    );
  }

  async failedMails(limit: number): Promise<OutboxMail[]> {
    const listed = await this.queryRecent(INDEX.recent, FAILED_MAIL, limit);
    const mails: OutboxMail[] = [];
    for (const item of listed) {
      const id = String(item[KEY.partition]).slice('OUTBOX#'.length);
      const mail = await this.getOutboxMail(id);
      if (mail && mail.state !== 'sent' && mail.state !== 'skipped') mails.push(mail);
    }
    return mails;
  }

  async requeueMail(id: string): Promise<boolean> {
    return this.conditional(
      'requeueMail',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.outbox(id),
        UpdateExpression: 'SET #state = :requeued, attempts = :zero',
        ConditionExpression: '#state IN (:queued, :sending, :requeued)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':requeued': 'requeued',
          ':queued': 'queued',
          ':sending': 'sending',
          ':zero': 0,
        },
      }),
    );
  }

  /**
   * Every subscriber, page by page through the `recent` index (only one page held at once), for
   * operator tooling such as the CSV export. Index items carry only the listed attributes, so
   * nothing private is read. The index is eventually consistent.
   */
  async *allSubscribers(options: ListingOptions = {}): AsyncGenerator<SubscriberRecord> {
    const { order = 'oldest-first', pageSize = 1_600, after } = options;
    for await (const item of subscribersInIdOrder(this.requests, this.table, {
      order: order === 'oldest-first' ? 'asc' : 'desc',
      ...(after === undefined
        ? {}
        : order === 'oldest-first'
          ? { from: after + 1 }
          : { to: after - 1 }),
      perQuery: Math.ceil(pageSize / SUBSCRIBER_INDEX_SHARDS) + 2,
    }))
      yield fromSubscriberItem(item);
  }

  /** Every newsletter issue, drafts and private ones included, page by page. */
  async *allNewsletterIssues(options: ListingOptions = {}): AsyncGenerator<NewsletterIssueRecord> {
    for await (const item of this.pages(INDEX.recent, NEWSLETTER, options))
      yield fromNewsletterItem(item);
  }

  private async queryRecent(
    index: { name: string; partition: string },
    kind: string,
    limit: number,
  ): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this.pages(index, kind, {
      order: 'newest-first',
      pageSize: limit,
      maxPages: 1,
    })) {
      items.push(item);
    }
    return items;
  }

  private async *pages(
    index: { name: string; partition: string },
    kind: string,
    {
      order = 'oldest-first',
      pageSize,
      after,
      maxPages = Number.POSITIVE_INFINITY,
    }: ListingOptions & { maxPages?: number },
  ): AsyncGenerator<Item> {
    let pages = 0;
    for await (const items of this.requests.queryPages(`query:${index.name}`, {
      TableName: this.table,
      IndexName: index.name,
      KeyConditionExpression:
        after === undefined ? '#kind = :kind' : '#kind = :kind AND #id > :after',
      ExpressionAttributeNames: {
        '#kind': index.partition,
        ...(after === undefined ? {} : { '#id': INDEX.recent.sort }),
      },
      ExpressionAttributeValues: {
        ':kind': kind,
        ...(after === undefined ? {} : { ':after': after }),
      },
      ScanIndexForward: order === 'oldest-first',
      ...(pageSize ? { Limit: pageSize } : {}),
    })) {
      yield* items;
      pages += 1;
      if (pages >= maxPages) return;
    }
  }
}

function fromOutboxItem(item: Item): OutboxMail {
  return {
    mail_id: String(item.mail_id),
    kind: item.kind as OutboxMail['kind'],
    email: String(item.email ?? ''),
    subscriber_id: Number(item.subscriber_id),
    ...(typeof item.link_base === 'string' ? { link_base: item.link_base } : {}),
    state: item.state as OutboxMail['state'],
    attempts: Number(item.attempts ?? 0),
    created: String(item.created),
    ...(typeof item.last_error === 'string' ? { last_error: item.last_error } : {}),
    ...(typeof item.sent_at === 'string' ? { sent_at: item.sent_at } : {}),
    ...(item.on_confirm ? { on_confirm: item.on_confirm as OnConfirm } : {}),
  };
}

function fromNewsletterItem(item: Item): NewsletterIssueRecord {
  return {
    id: Number(item.id),
    subject: String(item.subject),
    status: item.status as NewsletterIssueRecord['status'],
    created: String(item.created),
    sent_at: typeof item.sent_at === 'string' ? item.sent_at : null,
    ...(typeof item.url === 'string' ? { url: item.url } : {}),
    private: item.private === true,
    ...(typeof item.total === 'number' ? { total: item.total } : {}),
    ...(typeof item.sent === 'number' ? { sent: item.sent } : {}),
  };
}
