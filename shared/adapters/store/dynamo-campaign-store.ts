import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  CampaignRecord,
  PauseReason,
  RecountProgress,
} from '../../domain/campaign/campaign.ts';
import type { NewsletterIssueStatus } from '../../domain/newsletter-issue.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import type {
  CampaignStore,
  CampaignUpdate,
  IssueEdit,
  MemberPage,
  NewIssue,
  ReadOptions,
  StoredContent,
} from './campaign-store-port.ts';
import { DynamoBatches, inParallel } from './dynamo-batches.ts';
import { DynamoRecipientRecords } from './dynamo-recipient-records.ts';
import { type CapacityListener, CONDITION_FAILED, DynamoRequests } from './dynamo-requests.ts';
import { memberPartitions, memberRangeQuery } from './list-index.ts';
import { shardFrontier } from './shard-frontier.ts';
import { emailById, SUBSCRIBER_INDEX_SHARDS, subscribersInIdOrder } from './subscriber-index.ts';
import { fromSubscriberItem } from './subscriber-item.ts';
import { INDEX, KEY, keys, MEMBER_SHARDS } from './table-design.ts';

type Item = Record<string, unknown>;

/**
 * The campaign part of the single-table design (docs/storage.md, "Campaigns"): the campaign's
 * state on the newsletter item, its content in an item beside it; the planned
 * chunks and recipient records are DynamoRecipientRecords', the list index is read here; send
 * slots are the account's send budget's (dynamo-send-budget.ts).
 */
export class DynamoCampaignStore implements CampaignStore {
  readonly #requests: DynamoRequests;
  readonly #records: DynamoRecipientRecords;
  readonly #batches: DynamoBatches;
  // The chunks and records are DynamoRecipientRecords' (dynamo-recipient-records.ts).
  settledRecipients: CampaignStore['settledRecipients'];
  putChunks: CampaignStore['putChunks'];
  claimChunk: CampaignStore['claimChunk'];
  releaseChunk: CampaignStore['releaseChunk'];
  chunkPage: CampaignStore['chunkPage'];
  chunkLinks: CampaignStore['chunkLinks'];
  recordOutcome: CampaignStore['recordOutcome'];
  recipientPage: CampaignStore['recipientPage'];
  getRecipient: CampaignStore['getRecipient'];
  countSettled: CampaignStore['countSettled'];
  countSettledFrom: CampaignStore['countSettledFrom'];

  /**
   * `pause` waits before a batch's unprocessed part is sent again; tests pass one that records
   * the waits instead of spending them.
   */
  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
    onCapacity?: CapacityListener,
    pause?: (ms: number) => Promise<void>,
  ) {
    this.#requests = new DynamoRequests(client, onCapacity);
    const records = new DynamoRecipientRecords(this.#requests, table, pause);
    this.#records = records;
    this.#batches = new DynamoBatches(this.#requests, table, pause);
    this.settledRecipients = records.settledRecipients.bind(records);
    this.putChunks = records.putChunks.bind(records);
    this.claimChunk = records.claimChunk.bind(records);
    this.releaseChunk = records.releaseChunk.bind(records);
    this.chunkPage = records.chunkPage.bind(records);
    this.chunkLinks = records.chunkLinks.bind(records);
    this.recordOutcome = records.recordOutcome.bind(records);
    this.recipientPage = records.recipientPage.bind(records);
    this.getRecipient = records.getRecipient.bind(records);
    this.countSettled = records.countSettled.bind(records);
    this.countSettledFrom = records.countSettledFrom.bind(records);
  }

  async getCampaign(id: number, options: ReadOptions = {}): Promise<CampaignRecord | undefined> {
    const output = await this.#requests.send<{ Item?: Item }>(
      'getCampaign',
      new GetCommand({
        TableName: this.table,
        Key: keys.newsletter(id),
        ConsistentRead: options.consistent ?? true,
      }),
    );
    return output.Item ? fromCampaignItem(output.Item) : undefined;
  }

  async createIssue(issue: NewIssue, content: StoredContent | undefined): Promise<void> {
    const record = {
      ...keys.newsletter(issue.id),
      [INDEX.recent.partition]: 'newsletter',
      id: issue.id,
      subject: issue.subject,
      status: 'draft',
      created: issue.created,
      private: issue.private,
      lists: [...issue.lists],
      ...(issue.url ? { url: issue.url } : {}),
    };
    const put = {
      TableName: this.table,
      Item: record,
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': KEY.partition },
    };
    await this.#requests.send(
      'createIssue',
      content
        ? new TransactWriteCommand({
            TransactItems: [{ Put: put }, { Put: this.#contentPut(issue.id, content) }],
          })
        : new PutCommand(put),
    );
  }

  async editIssue(
    id: number,
    edit: IssueEdit,
    content: StoredContent | undefined,
    statuses: readonly NewsletterIssueStatus[],
  ): Promise<CampaignRecord | undefined> {
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const removes: string[] = [];
    const set = (field: string, value: unknown): void => {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    };
    if (edit.subject !== undefined) set('subject', edit.subject);
    if (edit.private !== undefined) set('private', edit.private);
    if (edit.lists !== undefined) set('lists', [...edit.lists]);
    if (edit.url !== undefined) {
      if (edit.url === null) {
        names['#url'] = 'url';
        removes.push('#url');
      } else set('url', edit.url);
    }
    if (edit.listPublicly === true) set(INDEX.publicRecent.partition, 'newsletter');
    if (edit.listPublicly === false) {
      names['#public'] = INDEX.publicRecent.partition;
      removes.push('#public');
    }
    statuses.forEach((status, index) => {
      values[`:s${index}`] = status;
    });
    const update = {
      TableName: this.table,
      Key: keys.newsletter(id),
      UpdateExpression: [
        sets.length ? `SET ${sets.join(', ')}` : '',
        removes.length ? `REMOVE ${removes.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' '),
      ConditionExpression: `#status IN (${statuses.map((_, index) => `:s${index}`).join(', ')})`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    };
    if (update.UpdateExpression === '' && !content) return this.getCampaign(id);
    try {
      if (content) {
        const items = [
          ...(update.UpdateExpression
            ? [{ Update: update }]
            : [
                {
                  ConditionCheck: {
                    TableName: this.table,
                    Key: keys.newsletter(id),
                    ConditionExpression: update.ConditionExpression,
                    ExpressionAttributeNames: { '#status': 'status' },
                    ExpressionAttributeValues: Object.fromEntries(
                      statuses.map((status, index) => [`:s${index}`, status]),
                    ),
                  },
                },
              ]),
          { Put: this.#contentPut(id, content) },
        ];
        await this.#requests.send('editIssue', new TransactWriteCommand({ TransactItems: items }));
      } else {
        await this.#requests.send('editIssue', new UpdateCommand(update));
      }
    } catch (error) {
      if (error instanceof Error && CONDITION_FAILED.has(error.name)) return undefined;
      throw error;
    }
    return this.getCampaign(id);
  }

  #contentPut(id: number, content: StoredContent) {
    return {
      TableName: this.table,
      Item: {
        ...keys.newsletterContent(id),
        html: content.html,
        text: content.text,
        ...(content.text_derived ? { text_derived: true } : {}),
      },
    };
  }

  async getContent(id: number, options: ReadOptions = {}): Promise<StoredContent | undefined> {
    const output = await this.#requests.send<{ Item?: Item }>(
      'getContent',
      new GetCommand({
        TableName: this.table,
        Key: keys.newsletterContent(id),
        ConsistentRead: options.consistent ?? true,
      }),
    );
    const item = output.Item;
    return item
      ? {
          html: String(item.html ?? ''),
          text: String(item.text ?? ''),
          ...(item.text_derived === true ? { text_derived: true } : {}),
        }
      : undefined;
  }

  async lastSubscriberId(): Promise<number> {
    const output = await this.#requests.send<{ Item?: Item }>(
      'lastSubscriberId',
      new GetCommand({
        TableName: this.table,
        Key: keys.counter('subscriber'),
        ConsistentRead: true,
      }),
    );
    return Number(output.Item?.next_id ?? 0);
  }

  async updateCampaign(id: number, update: CampaignUpdate): Promise<CampaignRecord | undefined> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    let counter = 0;
    const name = (field: string): string => {
      const placeholder = `#n${counter}`;
      counter += 1;
      names[placeholder] = field;
      return placeholder;
    };
    const value = (content: unknown): string => {
      const placeholder = `:v${counter}`;
      counter += 1;
      values[placeholder] = content;
      return placeholder;
    };
    const sets = Object.entries(update.set ?? {}).map(
      ([field, content]) => `${name(field)} = ${value(content)}`,
    );
    const adds = Object.entries(update.add ?? {}).map(
      ([field, amount]) => `${name(field)} ${value(amount)}`,
    );
    const removes = (update.remove ?? []).map((field) => name(field));
    if (update.listPublicly === true)
      sets.push(`${name(INDEX.publicRecent.partition)} = ${value('newsletter')}`);
    if (update.listPublicly === false) removes.push(name(INDEX.publicRecent.partition));
    const status = name('status');
    const conditions = [
      `${status} IN (${update.expect.statuses.map((each) => value(each)).join(', ')})`,
    ];
    if (update.expect.run !== undefined)
      conditions.push(`${name('run')} = ${value(update.expect.run)}`);
    if (update.expect.scheduledAt !== undefined)
      conditions.push(`${name('scheduled_at')} = ${value(update.expect.scheduledAt)}`);
    if (update.expect.private !== undefined) {
      const privacy = name('private');
      // An issue saved before the field existed has none, and is not private.
      conditions.push(
        update.expect.private
          ? `${privacy} = ${value(true)}`
          : `(attribute_not_exists(${privacy}) OR ${privacy} = ${value(false)})`,
      );
    }
    if (update.expect.pauseReason !== undefined)
      conditions.push(`${name('pause_reason')} = ${value(update.expect.pauseReason)}`);
    if (update.expect.walk !== undefined)
      conditions.push(
        update.expect.walk === 0
          ? `(attribute_not_exists(${name('walk')}) OR ${name('walk')} = ${value(0)})`
          : `${name('walk')} = ${value(update.expect.walk)}`,
      );
    if (update.expect.fedAfter !== undefined) {
      const fed = name('fed_after');
      conditions.push(
        update.expect.fedAfter === 0
          ? `(attribute_not_exists(${fed}) OR ${fed} = ${value(0)})`
          : `${fed} = ${value(update.expect.fedAfter)}`,
      );
    }
    if (update.expect.waiting !== undefined)
      conditions.push(
        `${update.expect.waiting ? 'attribute_exists' : 'attribute_not_exists'}(${name('waiting_since')})`,
      );
    if (update.expect.planPage !== undefined) {
      const page = name('plan_page');
      conditions.push(
        update.expect.planPage === 0
          ? `(attribute_not_exists(${page}) OR ${page} = ${value(0)})`
          : `${page} = ${value(update.expect.planPage)}`,
      );
    }
    const expression = [
      sets.length ? `SET ${sets.join(', ')}` : '',
      adds.length ? `ADD ${adds.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    try {
      const output = await this.#requests.send<{ Attributes?: Item }>(
        'updateCampaign',
        new UpdateCommand({
          TableName: this.table,
          Key: keys.newsletter(id),
          UpdateExpression: expression,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return output.Attributes ? fromCampaignItem(output.Attributes) : undefined;
    } catch (error) {
      if (error instanceof Error && CONDITION_FAILED.has(error.name)) return undefined;
      throw error;
    }
  }

  async memberPage(
    lists: readonly number[],
    after: number,
    upTo: number,
    limit: number,
  ): Promise<MemberPage> {
    const partitions = memberPartitions(lists);
    if (after >= upTo || partitions.length === 0) return { members: [], last: upTo, more: false };
    // Each shard of each list is read in id order, a little more than its share of the page;
    // the page ends where the first shard with more to read stopped, so nobody below it is
    // missed, or at `limit` members. What lies beyond is read again by the next page: about a
    // shard's share per list, since ids fill the shards evenly (modulo MEMBER_SHARDS).
    const perPartition = Math.ceil(limit / MEMBER_SHARDS) + 1;
    const reads = await Promise.all(
      partitions.map(({ list, shard }) =>
        this.#requests.send<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
          'query:members',
          new QueryCommand({
            ...memberRangeQuery(this.table, list, shard, after + 1, upTo),
            Limit: perPartition,
          }),
        ),
      ),
    );
    const frontier = shardFrontier(reads, upTo);
    const found = new Map<number, string>();
    for (const read of reads) {
      for (const item of read.Items ?? []) {
        const id = Number(item[KEY.sort]);
        if (id <= frontier) found.set(id, String(item.email));
      }
    }
    const members = [...found]
      .sort(([a], [b]) => a - b)
      .slice(0, limit)
      .map(([id, email]) => ({ id, email }));
    const last = found.size > limit ? (members.at(-1)?.id ?? frontier) : frontier;
    return { members, last, more: last < upTo };
  }

  async listIndexReady(): Promise<boolean> {
    const output = await this.#requests.send<{ Item?: Item }>(
      'listIndexReady',
      new GetCommand({
        TableName: this.table,
        Key: keys.counter('subscriber'),
        ConsistentRead: true,
      }),
    );
    // No counter: no subscriber was ever written, so there is nothing to index.
    return output.Item === undefined || output.Item.list_index === true;
  }

  async emailsOf(subscriberIds: readonly number[]): Promise<Map<number, string>> {
    const emails = new Map<number, string>();
    if (subscriberIds.length === 0) return emails;
    const sorted = [...subscriberIds].sort((a, b) => a - b);
    const from = sorted[0] ?? 0;
    const to = sorted.at(-1) ?? 0;
    const wanted = new Set(sorted);
    // A dense run of ids is one ranged read of each index partition; ids scattered over many
    // other subscribers are looked up one by one rather than read past.
    if (to - from + 1 <= 4 * sorted.length) {
      for await (const item of subscribersInIdOrder(this.#requests, this.table, {
        order: 'asc',
        from,
        to,
        fields: ['email'],
        perQuery: Math.ceil((to - from + 1) / SUBSCRIBER_INDEX_SHARDS) + 2,
      })) {
        const id = Number(item.id);
        if (wanted.has(id)) emails.set(id, String(item.email));
      }
      return emails;
    }
    await inParallel(sorted, 8, async (id) => {
      const email = await emailById(this.#requests, this.table, id);
      if (email !== undefined) emails.set(id, email);
    });
    return emails;
  }

  async subscribersByEmail(emails: readonly string[]): Promise<Map<string, SubscriberRecord>> {
    const found = new Map<string, SubscriberRecord>();
    const unique = [...new Set(emails)];
    for (const item of await this.#batches.get(
      'batchGet',
      unique.map((email) => keys.subscriber(email)),
    )) {
      const subscriber = fromSubscriberItem(item);
      found.set(subscriber.email, subscriber);
    }
    return found;
  }

  async campaignsWithStatus(
    statuses: readonly NewsletterIssueStatus[],
    limit: number,
  ): Promise<number[]> {
    // A query's Limit counts the items it reads, before the filter: one page of the newest
    // `limit` issues may hold none of these statuses while older ones do (a campaign still
    // sending behind a hundred newer drafts), so read on until `limit` matched or none is left.
    const ids: number[] = [];
    for await (const items of this.#requests.queryPages('query:recent', {
      TableName: this.table,
      IndexName: INDEX.recent.name,
      KeyConditionExpression: '#kind = :kind',
      FilterExpression: `#status IN (${statuses.map((_, index) => `:s${index}`).join(', ')})`,
      ExpressionAttributeNames: {
        '#kind': INDEX.recent.partition,
        '#status': 'status',
        '#id': INDEX.recent.sort,
      },
      ExpressionAttributeValues: {
        ':kind': 'newsletter',
        ...Object.fromEntries(statuses.map((status, index) => [`:s${index}`, status])),
      },
      ProjectionExpression: '#id',
      ScanIndexForward: false,
      Limit: limit,
    })) {
      ids.push(...items.map((item) => Number(item.id)));
      if (ids.length >= limit) break;
    }
    return ids.slice(0, limit);
  }

  async markFeedback(
    newsletterId: number,
    subscriberId: number,
    messageId: string,
    kind: 'bounced' | 'complained',
    at: Date,
  ): Promise<void> {
    await this.#records.updateRecord('markFeedback', newsletterId, subscriberId, {
      UpdateExpression: 'SET #field = :at',
      ConditionExpression: 'message_id = :message AND attribute_not_exists(#field)',
      ExpressionAttributeNames: { '#field': `${kind}_at` },
      ExpressionAttributeValues: { ':at': at.toISOString(), ':message': messageId },
    });
  }

  async markUnsubscribed(newsletterId: number, subscriberId: number, at: Date): Promise<void> {
    await this.#records.updateRecord('markUnsubscribed', newsletterId, subscriberId, {
      UpdateExpression: 'SET unsubscribed_at = :at',
      ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(unsubscribed_at)',
      ExpressionAttributeNames: { '#pk': KEY.partition },
      ExpressionAttributeValues: { ':at': at.toISOString() },
    });
  }
}
function fromCampaignItem(item: Item): CampaignRecord {
  const number = (field: string): number => Number(item[field] ?? 0);
  const text = (field: string): string | undefined =>
    typeof item[field] === 'string' ? (item[field] as string) : undefined;
  const startedAt = text('started_at');
  const rate = item.rate === undefined ? undefined : Number(item.rate);
  const linkBase = text('link_base');
  const progressAt = text('progress_at');
  const activeAt = text('active_at');
  const pauseReason = text('pause_reason') as PauseReason | undefined;
  const url = text('url');
  const scheduledAt = text('scheduled_at');
  const scheduleMissedAt = text('schedule_missed_at');
  const quotaCheckedAt = text('quota_checked_at');
  const recountedAt = text('recounted_at');
  const recount = recountOf(item.recount);
  const waitingSince = text('waiting_since');
  return {
    id: number('id'),
    subject: String(item.subject ?? ''),
    status: item.status as CampaignRecord['status'],
    created: String(item.created ?? ''),
    sent_at: text('sent_at') ?? null,
    ...(url ? { url } : {}),
    private: item.private === true,
    lists: ((item.lists as unknown[] | undefined) ?? []).map(Number),
    run: number('run'),
    ...(startedAt ? { started_at: startedAt } : {}),
    max_subscriber_id: number('max_subscriber_id'),
    new_only: item.new_only === true,
    plan_page: number('plan_page'),
    plan_cursor: number('plan_cursor'),
    plan_done: item.plan_done === true,
    total: number('total'),
    sent: number('sent'),
    skipped: number('skipped'),
    failed: number('failed'),
    ...(rate !== undefined ? { rate } : {}),
    ...(linkBase ? { link_base: linkBase } : {}),
    ...(progressAt ? { progress_at: progressAt } : {}),
    ...(activeAt ? { active_at: activeAt } : {}),
    consecutive_failures: number('consecutive_failures'),
    ...(pauseReason ? { pause_reason: pauseReason } : {}),
    walk: number('walk'),
    fed_after: number('fed_after'),
    fed_chunks: number('fed_chunks'),
    done_chunks: number('done_chunks'),
    legacy_records: item.legacy_records === true,
    records_spread: item.records_spread === true,
    ...(scheduledAt ? { scheduled_at: scheduledAt } : {}),
    ...(scheduleMissedAt ? { schedule_missed_at: scheduleMissedAt } : {}),
    ...(quotaCheckedAt ? { quota_checked_at: quotaCheckedAt } : {}),
    ...(recountedAt ? { recounted_at: recountedAt } : {}),
    ...(recount ? { recount } : {}),
    ...(waitingSince ? { waiting_since: waitingSince } : {}),
  };
}

/** A recount under way as stored (a map), or undefined when there is none or it is unreadable. */
function recountOf(value: unknown): RecountProgress | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const stored = value as Record<string, unknown>;
  if (typeof stored.started_at !== 'string') return undefined;
  return {
    run: Number(stored.run ?? 0),
    started_at: stored.started_at,
    partition: Number(stored.partition ?? 0),
    ...(typeof stored.after === 'string' ? { after: stored.after } : {}),
    sent: Number(stored.sent ?? 0),
    skipped: Number(stored.skipped ?? 0),
    failed: Number(stored.failed ?? 0),
  };
}
