import { setTimeout as sleep } from 'node:timers/promises';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { CampaignRecord, PauseReason } from '../../domain/campaign/campaign.ts';
import type {
  RecipientRecord,
  RecipientState,
  SkipReason,
} from '../../domain/campaign/recipient.ts';
import { DependencyError } from '../../domain/errors.ts';
import type { NewsletterIssueStatus } from '../../domain/newsletter-issue.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import type {
  CampaignStore,
  CampaignUpdate,
  IssueEdit,
  MemberPage,
  NewIssue,
  ReadOptions,
  RecipientClaim,
  RecipientOutcome,
  RecipientRelease,
  StoredContent,
} from './campaign-store-port.ts';
import { type CapacityListener, CONDITION_FAILED, DynamoRequests } from './dynamo-requests.ts';
import { memberPartitions, memberRangeQuery } from './list-index.ts';
import { emailByIdQuery, fromSubscriberItem } from './subscriber-item.ts';
import {
  INDEX,
  KEY,
  keys,
  MEMBER_SHARDS,
  recipientSortKey,
  TTL_ATTRIBUTE,
} from './table-design.ts';

type Item = Record<string, unknown>;

/** Keys per BatchGetItem and items per BatchWriteItem, DynamoDB's limits. */
const BATCH_GET_KEYS = 100;
const BATCH_WRITE_ITEMS = 25;
/** Batch calls of one page in flight at once. */
const BATCH_PARALLEL = 4;
/** Rounds of retrying what a batch call left unprocessed (throttling) before giving up. */
const UNPROCESSED_ROUNDS = 8;
/** Tries at reserving send slots before the worker gives up (each loses to another worker). */
const PACE_ATTEMPTS = 50;

/**
 * The campaign part of the single-table design (docs/storage.md, "Campaigns"): the campaign's
 * state on the newsletter item, its content in an item beside it, and the recipient records in
 * a partition of their own per issue, sorted by subscriber id.
 */
export class DynamoCampaignStore implements CampaignStore {
  readonly #requests: DynamoRequests;
  /** The last pace reservation seen per issue: the next one's condition, in this container. */
  readonly #paceSeen = new Map<number, { run: number; next: number }>();

  /**
   * `pause` waits before a batch's unprocessed part is sent again; tests pass one that records
   * the waits instead of spending them.
   */
  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
    onCapacity?: CapacityListener,
    private readonly pause: (ms: number) => Promise<void> = sleep,
  ) {
    this.#requests = new DynamoRequests(client, onCapacity);
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
    // Each shard of each list is read in id order; the page ends at the lowest id a shard with
    // more to read got to, so nothing below it is missed, and what lies beyond is read again
    // by the next page. Shards are filled evenly (ids modulo the shards), so little is.
    const perPartition = Math.max(1, Math.ceil(limit / MEMBER_SHARDS));
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
    let last = upTo;
    for (const read of reads) {
      const items = read.Items ?? [];
      if (read.LastEvaluatedKey !== undefined && items.length > 0)
        last = Math.min(last, Number(items.at(-1)?.[KEY.sort]));
    }
    const members = new Map<number, string>();
    for (const read of reads) {
      for (const item of read.Items ?? []) {
        const id = Number(item[KEY.sort]);
        if (id <= last) members.set(id, String(item.email));
      }
    }
    return {
      members: [...members].sort(([a], [b]) => a - b).map(([id, email]) => ({ id, email })),
      last,
      more: last < upTo,
    };
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

  /** A Query of the `recent` index: the subscribers with ids `from` to `to`, their id and `fields`. */
  #subscriberRange(from: number, to: number, fields: readonly string[]): QueryCommandInput {
    return {
      TableName: this.table,
      IndexName: INDEX.recent.name,
      KeyConditionExpression: '#kind = :kind AND #id BETWEEN :from AND :to',
      ExpressionAttributeNames: {
        '#kind': INDEX.recent.partition,
        '#id': INDEX.recent.sort,
        ...Object.fromEntries(fields.map((field) => [`#${field}`, field])),
      },
      ExpressionAttributeValues: { ':kind': 'subscriber', ':from': from, ':to': to },
      ProjectionExpression: ['#id', ...fields.map((field) => `#${field}`)].join(', '),
    };
  }

  async emailsOf(subscriberIds: readonly number[]): Promise<Map<number, string>> {
    const emails = new Map<number, string>();
    if (subscriberIds.length === 0) return emails;
    const sorted = [...subscriberIds].sort((a, b) => a - b);
    const from = sorted[0] ?? 0;
    const to = sorted.at(-1) ?? 0;
    const wanted = new Set(sorted);
    // A dense run of ids is one ranged Query; ids scattered over many other subscribers are
    // looked up one by one rather than read past.
    if (to - from + 1 <= 4 * sorted.length) {
      for await (const items of this.#requests.queryPages(
        'query:recent',
        this.#subscriberRange(from, to, ['email']),
      )) {
        for (const item of items) {
          const id = Number(item.id);
          if (wanted.has(id)) emails.set(id, String(item.email));
        }
      }
      return emails;
    }
    await inParallel(sorted, 8, async (id) => {
      const output = await this.#requests.send<{ Items?: Item[] }>(
        'query:recent',
        new QueryCommand(emailByIdQuery(this.table, id)),
      );
      const item = output.Items?.[0];
      if (item) emails.set(id, String(item.email));
    });
    return emails;
  }

  async subscribersByEmail(emails: readonly string[]): Promise<Map<string, SubscriberRecord>> {
    const found = new Map<string, SubscriberRecord>();
    const unique = [...new Set(emails)];
    const batches = slices(unique, BATCH_GET_KEYS);
    await inParallel(batches, BATCH_PARALLEL, async (batch) => {
      for (const item of await this.#batchGet(batch.map((email) => keys.subscriber(email)))) {
        const subscriber = fromSubscriberItem(item);
        found.set(subscriber.email, subscriber);
      }
    });
    return found;
  }

  async existingRecipients(
    newsletterId: number,
    subscriberIds: readonly number[],
  ): Promise<Set<number>> {
    const existing = new Set<number>();
    const batches = slices([...new Set(subscriberIds)], BATCH_GET_KEYS);
    await inParallel(batches, BATCH_PARALLEL, async (batch) => {
      const items = await this.#batchGet(
        batch.map((id) => keys.recipient(newsletterId, id)),
        '#sk',
        { '#sk': KEY.sort },
      );
      for (const item of items) existing.add(Number(item[KEY.sort]));
    });
    return existing;
  }

  async putRecipients(
    newsletterId: number,
    run: number,
    subscriberIds: readonly number[],
  ): Promise<void> {
    const items = subscriberIds.map((id) => ({
      PutRequest: {
        Item: {
          ...keys.recipient(newsletterId, id),
          subscriber_id: id,
          run,
          state: 'pending' satisfies RecipientState,
          attempts: 0,
        },
      },
    }));
    await inParallel(slices(items, BATCH_WRITE_ITEMS), BATCH_PARALLEL, async (batch) => {
      let pending: typeof batch = batch;
      for (let round = 0; pending.length > 0; round += 1) {
        await this.#beforeRound(round, pending.length, 'recipient records');
        const output = await this.#requests.send<{
          UnprocessedItems?: Record<string, typeof batch>;
        }>('putRecipients', new BatchWriteCommand({ RequestItems: { [this.table]: pending } }));
        pending = output.UnprocessedItems?.[this.table] ?? [];
      }
    });
  }

  async recipientPage(
    newsletterId: number,
    after: number,
    limit: number,
  ): Promise<{ recipients: RecipientRecord[]; more: boolean }> {
    const output = await this.#requests.send<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
      'query:recipients',
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: '#pk = :pk AND #sk > :after',
        ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
        ExpressionAttributeValues: {
          ':pk': keys.recipients(newsletterId),
          ':after': recipientSortKey(after),
        },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return {
      recipients: (output.Items ?? []).map((item) => fromRecipientItem(newsletterId, item)),
      more: output.LastEvaluatedKey !== undefined,
    };
  }

  async getRecipient(
    newsletterId: number,
    subscriberId: number,
  ): Promise<RecipientRecord | undefined> {
    const output = await this.#requests.send<{ Item?: Item }>(
      'getRecipient',
      new GetCommand({
        TableName: this.table,
        Key: keys.recipient(newsletterId, subscriberId),
        ConsistentRead: true,
      }),
    );
    return output.Item ? fromRecipientItem(newsletterId, output.Item) : undefined;
  }

  claimRecipient(
    newsletterId: number,
    subscriberId: number,
    claim: RecipientClaim,
  ): Promise<boolean> {
    return this.#requests.conditional(
      'claimRecipient',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.recipient(newsletterId, subscriberId),
        // The link's hash joins the hashes of earlier attempts: a copy mailed by an attempt whose
        // outcome was lost keeps a working link ([campaign.every-copy-link]). A record planned
        // before recipient records lasted as long as their issue loses its expiry here.
        UpdateExpression:
          'SET #state = :sending, lease_until = :lease, #owner = :owner, link_expires_at = :link ' +
          'ADD attempts :one, token_hashes :hash REMOVE #expires',
        // Pending, or claimed by an attempt whose lease lapsed (its worker died mid-send): never
        // one that is settled, nor one another worker holds.
        ConditionExpression:
          'attribute_exists(#pk) AND (#state = :pending OR (#state = :sending AND lease_until < :now))',
        ExpressionAttributeNames: {
          '#pk': KEY.partition,
          '#state': 'state',
          '#owner': 'owner',
          '#expires': TTL_ATTRIBUTE,
        },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':pending': 'pending',
          ':lease': claim.leaseUntil,
          ':owner': claim.owner,
          ':hash': new Set([claim.tokenHash]),
          ':link': claim.linkExpiresAt,
          ':now': claim.now,
          ':one': 1,
        },
      }),
    );
  }

  skipRecipient(
    newsletterId: number,
    subscriberId: number,
    reason: SkipReason,
    now: number,
  ): Promise<boolean> {
    return this.#requests.conditional(
      'skipRecipient',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.recipient(newsletterId, subscriberId),
        UpdateExpression:
          'SET #state = :skipped, reason = :reason, #at = :at REMOVE lease_until, #owner, #expires',
        ConditionExpression:
          'attribute_exists(#pk) AND (#state = :pending OR (#state = :sending AND lease_until < :now))',
        ExpressionAttributeNames: {
          '#pk': KEY.partition,
          '#state': 'state',
          '#owner': 'owner',
          '#at': 'at',
          '#expires': TTL_ATTRIBUTE,
        },
        ExpressionAttributeValues: {
          ':skipped': 'skipped',
          ':pending': 'pending',
          ':sending': 'sending',
          ':reason': reason,
          ':at': new Date(now).toISOString(),
          ':now': now,
        },
      }),
    );
  }

  settleRecipient(
    newsletterId: number,
    subscriberId: number,
    owner: string,
    outcome: RecipientOutcome,
    at: Date,
  ): Promise<boolean> {
    const detail =
      outcome.state === 'sent'
        ? { field: 'message_id', value: outcome.messageId }
        : { field: 'error', value: outcome.error.slice(0, 500) };
    return this.#requests.conditional(
      'settleRecipient',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.recipient(newsletterId, subscriberId),
        UpdateExpression: 'SET #state = :state, #at = :at, #detail = :detail REMOVE lease_until',
        ConditionExpression: '#state = :sending AND #owner = :owner',
        ExpressionAttributeNames: {
          '#state': 'state',
          '#owner': 'owner',
          '#at': 'at',
          '#detail': detail.field,
        },
        ExpressionAttributeValues: {
          ':state': outcome.state,
          ':sending': 'sending',
          ':owner': owner,
          ':at': at.toISOString(),
          ':detail': detail.value,
        },
      }),
    );
  }

  async releaseRecipient(
    newsletterId: number,
    subscriberId: number,
    owner: string,
    link: RecipientRelease,
  ): Promise<void> {
    // A mail SES surely did not take carries a link nobody holds: its hash goes. One whose
    // outcome is unknown may be in a mailbox: its link must go on working.
    const forget = link.tokenHash !== undefined && !link.mayHaveBeenSent;
    await this.#requests.conditional(
      'releaseRecipient',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.recipient(newsletterId, subscriberId),
        UpdateExpression: `SET #state = :pending REMOVE lease_until, #owner${forget ? ' DELETE token_hashes :hash' : ''}`,
        ConditionExpression: '#state = :sending AND #owner = :owner',
        ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':sending': 'sending',
          ':owner': owner,
          ...(forget ? { ':hash': new Set([link.tokenHash]) } : {}),
        },
      }),
    );
  }

  async reservePace(
    newsletterId: number,
    run: number,
    slots: number,
    spacingMs: number,
    now: number,
  ): Promise<number> {
    let seen = this.#paceSeen.get(newsletterId);
    for (let attempt = 0; attempt < PACE_ATTEMPTS; attempt += 1) {
      const start = seen && seen.run === run ? Math.max(now, seen.next) : now;
      const next = start + slots * spacingMs;
      try {
        await this.#requests.send(
          'reservePace',
          new UpdateCommand({
            TableName: this.table,
            Key: keys.newsletterPace(newsletterId),
            UpdateExpression: 'SET next_at = :next, #run = :run',
            // Another worker's reservation since this one's view fails the write and returns
            // what it reserved, so the next try starts after it: no extra read.
            ConditionExpression:
              seen === undefined
                ? 'attribute_not_exists(next_at)'
                : '(#run = :run AND next_at = :seen) OR #run <> :run',
            ExpressionAttributeNames: { '#run': 'run' },
            ExpressionAttributeValues: {
              ':next': next,
              ':run': run,
              ...(seen === undefined ? {} : { ':seen': seen.next }),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        this.#paceSeen.set(newsletterId, { run, next });
        return start;
      } catch (error) {
        if (!(error instanceof Error) || !CONDITION_FAILED.has(error.name)) throw error;
        const old = (error as { Item?: Record<string, { N?: string } | number> }).Item;
        seen = { run: attributeNumber(old?.run), next: attributeNumber(old?.next_at) };
      }
    }
    throw new DependencyError('dynamodb', {
      cause: new Error(`no pace reserved for newsletter ${newsletterId} in ${PACE_ATTEMPTS} tries`),
    });
  }

  async countRecipients(newsletterId: number): Promise<Record<RecipientState, number>> {
    const counts: Record<RecipientState, number> = {
      pending: 0,
      sending: 0,
      sent: 0,
      skipped: 0,
      failed: 0,
    };
    for await (const items of this.#requests.queryPages('query:recipients', {
      TableName: this.table,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': KEY.partition, '#state': 'state' },
      ExpressionAttributeValues: { ':pk': keys.recipients(newsletterId) },
      ProjectionExpression: '#state',
      ConsistentRead: true,
    })) {
      for (const item of items) {
        const state = item.state as RecipientState;
        if (state in counts) counts[state] += 1;
      }
    }
    return counts;
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
    await this.#requests.conditional(
      'markFeedback',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.recipient(newsletterId, subscriberId),
        UpdateExpression: 'SET #field = :at',
        ConditionExpression: 'message_id = :message AND attribute_not_exists(#field)',
        ExpressionAttributeNames: { '#field': `${kind}_at` },
        ExpressionAttributeValues: { ':at': at.toISOString(), ':message': messageId },
      }),
    );
  }

  async markUnsubscribed(newsletterId: number, subscriberId: number, at: Date): Promise<void> {
    await this.#requests.conditional(
      'markUnsubscribed',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.recipient(newsletterId, subscriberId),
        UpdateExpression: 'SET unsubscribed_at = :at',
        ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(unsubscribed_at)',
        ExpressionAttributeNames: { '#pk': KEY.partition },
        ExpressionAttributeValues: { ':at': at.toISOString() },
      }),
    );
  }

  /**
   * Before round `round` of sending a batch's unprocessed part again: gives up after
   * UNPROCESSED_ROUNDS, and waits longer before each round after the first.
   */
  async #beforeRound(round: number, left: number, what: string): Promise<void> {
    if (round >= UNPROCESSED_ROUNDS)
      throw new DependencyError('dynamodb', {
        cause: new Error(`${left} ${what} left unprocessed`),
      });
    if (round > 0) await this.pause(Math.min(1000, 25 * 2 ** round));
  }

  /** Reads items by key, consistently, retrying what DynamoDB left unprocessed. */
  async #batchGet(
    itemKeys: readonly Item[],
    projection?: string,
    names?: Record<string, string>,
  ): Promise<Item[]> {
    const items: Item[] = [];
    let pending: Item[] = [...itemKeys];
    for (let round = 0; pending.length > 0; round += 1) {
      await this.#beforeRound(round, pending.length, 'keys');
      const output = await this.#requests.send<{
        Responses?: Record<string, Item[]>;
        UnprocessedKeys?: Record<string, { Keys?: Item[] }>;
      }>(
        'batchGet',
        new BatchGetCommand({
          RequestItems: {
            [this.table]: {
              Keys: pending,
              ConsistentRead: true,
              ...(projection ? { ProjectionExpression: projection } : {}),
              ...(names ? { ExpressionAttributeNames: names } : {}),
            },
          },
        }),
      );
      items.push(...(output.Responses?.[this.table] ?? []));
      pending = output.UnprocessedKeys?.[this.table]?.Keys ?? [];
    }
    return items;
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
    ...(scheduledAt ? { scheduled_at: scheduledAt } : {}),
    ...(scheduleMissedAt ? { schedule_missed_at: scheduleMissedAt } : {}),
    ...(quotaCheckedAt ? { quota_checked_at: quotaCheckedAt } : {}),
    ...(recountedAt ? { recounted_at: recountedAt } : {}),
  };
}

function fromRecipientItem(newsletterId: number, item: Item): RecipientRecord {
  const optional = <T>(field: string, type: 'string' | 'number'): T | undefined =>
    typeof item[field] === type ? (item[field] as T) : undefined;
  const entries = {
    lease_until: optional<number>('lease_until', 'number'),
    owner: optional<string>('owner', 'string'),
    at: optional<string>('at', 'string'),
    message_id: optional<string>('message_id', 'string'),
    reason: optional<SkipReason>('reason', 'string'),
    error: optional<string>('error', 'string'),
    token_hash: optional<string>('token_hash', 'string'),
    link_expires_at: optional<number>('link_expires_at', 'number'),
    token_hashes:
      item.token_hashes instanceof Set ? [...(item.token_hashes as Set<string>)] : undefined,
    unsubscribed_at: optional<string>('unsubscribed_at', 'string'),
    bounced_at: optional<string>('bounced_at', 'string'),
    complained_at: optional<string>('complained_at', 'string'),
    opened_at: optional<string>('opened_at', 'string'),
    clicked_at: optional<string>('clicked_at', 'string'),
  };
  return {
    newsletter_id: newsletterId,
    subscriber_id: Number(item.subscriber_id ?? Number(item[KEY.sort])),
    state: item.state as RecipientState,
    run: Number(item.run ?? 1),
    attempts: Number(item.attempts ?? 0),
    ...Object.fromEntries(Object.entries(entries).filter(([, each]) => each !== undefined)),
  };
}

/** A number attribute of an item DynamoDB returned unconverted (an error's ALL_OLD). */
function attributeNumber(value: { N?: string } | number | undefined): number {
  if (typeof value === 'number') return value;
  return Number(value?.N ?? 0);
}

function slices<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    result.push(items.slice(start, start + size));
  return result;
}

/** Runs `work` over `items` with at most `limit` at once; the first failure rejects. */
async function inParallel<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
