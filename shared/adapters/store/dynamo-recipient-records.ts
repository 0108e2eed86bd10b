import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type {
  RecipientRecord,
  RecipientState,
  SkipReason,
} from '../../domain/campaign/recipient.ts';
import { SETTLED_STATES } from '../../domain/campaign/recipient.ts';
import { CHUNK_SIZE } from '../../domain/campaign/work-messages.ts';
import type {
  ChunkClaim,
  ChunkClaimResult,
  ChunkLinks,
  PlannedChunk,
  RecipientOutcome,
  RecordSpace,
  RecountCursor,
  RecountStep,
  SettledCounts,
} from './campaign-store-port.ts';
import { DynamoBatches } from './dynamo-batches.ts';
import { CONDITION_FAILED, type DynamoRequests } from './dynamo-requests.ts';
import { shardFrontier } from './shard-frontier.ts';
import { chunkSortKey, KEY, keys, RECIPIENT_SHARDS, recipientSortKey } from './table-design.ts';

type Item = Record<string, unknown>;

/**
 * Most link hashes a recipient record keeps (`token_hashes`): one per copy recorded, and a
 * copy goes out again only after a crash or an unanswered call, so a record rarely holds two.
 * A copy beyond these is still checked on its chunk's claim item: the record stays bounded.
 */
export const RECORD_LINK_HASHES = 8;
/** Records one Query of a recount reads at most (about 250 KB of records of ~250 bytes). */
const COUNT_PAGE_ITEMS = 1_000;
/** Most characters of SES's refusal a failed record keeps. */
const MAX_ERROR_CHARACTERS = 500;

/**
 * The recipients part of the single-table design (docs/storage.md, "Campaigns"): a run's
 * planned chunks, in one partition per issue, and a record per recipient the issue reached,
 * skipped or failed, spread over RECIPIENT_SHARDS partitions by subscriber id. Records of runs
 * from before the spread live in one partition of their own and are read with the rest
 * (`legacy`).
 */
export class DynamoRecipientRecords {
  readonly #batches: DynamoBatches;

  constructor(
    private readonly requests: DynamoRequests,
    private readonly table: string,
    pause?: (ms: number) => Promise<void>,
  ) {
    this.#batches = new DynamoBatches(requests, table, pause);
  }

  async putChunks(
    newsletterId: number,
    run: number,
    chunks: readonly { readonly first: number; readonly ids: readonly number[] }[],
  ): Promise<void> {
    await this.#batches.put(
      'putChunks',
      chunks.map((chunk) => ({
        ...keys.chunk(newsletterId, run, chunk.first),
        ids: [...chunk.ids],
      })),
    );
  }

  async claimChunk(
    newsletterId: number,
    run: number,
    first: number,
    claim: ChunkClaim,
  ): Promise<ChunkClaimResult> {
    // A claim's links are one item of at most a chunk's recipients: no caller makes it larger.
    if (claim.entries.length > CHUNK_SIZE)
      throw new RangeError(
        `a claim mints at most ${CHUNK_SIZE} links, not ${claim.entries.length}`,
      );
    let claims: number;
    try {
      const output = await this.requests.send<{ Attributes?: Item }>(
        'claimChunk',
        new UpdateCommand({
          TableName: this.table,
          Key: keys.chunk(newsletterId, run, first),
          UpdateExpression: 'SET #owner = :owner, lease_until = :lease ADD claims :one',
          ConditionExpression:
            'attribute_exists(#pk) AND (attribute_not_exists(lease_until) OR lease_until < :now)',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':owner': claim.owner,
            ':lease': claim.leaseUntil,
            ':now': claim.now,
            ':one': 1,
          },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      claims = Number(output.Attributes?.claims ?? 1);
    } catch (error) {
      if (!(error instanceof Error) || !CONDITION_FAILED.has(error.name)) throw error;
      const old = (error as { Item?: Record<string, { N?: string }> }).Item;
      const held = old?.lease_until?.N;
      return held === undefined ? { claimed: false } : { claimed: false, heldUntil: Number(held) };
    }
    // Every link minted goes in before any mail, in an item of this claim's own: a copy SES
    // took before its worker died has a working link though its record was never written, and
    // the chunk is not rewritten larger at each claim. A worker that dies before this write has
    // sent nothing of the claim.
    if (claim.entries.length > 0)
      await this.requests.send(
        'putChunkLinks',
        new PutCommand({
          TableName: this.table,
          Item: {
            ...keys.chunkClaimLinks(newsletterId, run, first, claims),
            entries: new Set(claim.entries),
            link_expires_at: claim.linkExpiresAt,
          },
        }),
      );
    return { claimed: true, claims };
  }

  async releaseChunk(
    newsletterId: number,
    run: number,
    first: number,
    owner: string,
    done: boolean,
  ): Promise<void> {
    await this.requests.conditional(
      'releaseChunk',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.chunk(newsletterId, run, first),
        UpdateExpression: `REMOVE #owner, lease_until${done ? ' SET done = :done' : ''}`,
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner, ...(done ? { ':done': true } : {}) },
      }),
    );
  }

  async chunkPage(
    newsletterId: number,
    run: number,
    after: number,
    upTo: number,
    limit: number,
  ): Promise<{ readonly chunks: PlannedChunk[]; readonly more: boolean }> {
    const output = await this.requests.send<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
      'query:chunks',
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
        ExpressionAttributeValues: {
          ':pk': keys.chunks(newsletterId),
          ':from': chunkSortKey(run, after + 1),
          ':to': chunkSortKey(run, upTo),
        },
        ProjectionExpression: '#sk, ids, done',
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    const chunks = (output.Items ?? []).map((item) => ({
      run,
      first: Number(String(item[KEY.sort]).split('#')[1]),
      ids: ((item.ids as unknown[] | undefined) ?? []).map(Number),
      done: item.done === true,
    }));
    return { chunks, more: output.LastEvaluatedKey !== undefined };
  }

  async chunkLinks(
    newsletterId: number,
    run: number,
    first: number,
  ): Promise<ChunkLinks | undefined> {
    const read = (key: Item, projection: string) =>
      this.requests.send<{ Item?: Item }>(
        'getChunkLinks',
        new GetCommand({
          TableName: this.table,
          Key: key,
          ProjectionExpression: projection,
          ConsistentRead: true,
        }),
      );
    // Chunks claimed before the claims had items of their own hold their entries themselves.
    const chunk = (
      await read(keys.chunk(newsletterId, run, first), 'link_hashes, link_expires_at, claims')
    ).Item;
    if (!chunk) return undefined;
    const claims = Number(chunk.claims ?? 0);
    const claimItems = await Promise.all(
      Array.from({ length: claims }, (_, index) =>
        read(keys.chunkClaimLinks(newsletterId, run, first, index + 1), 'entries, link_expires_at'),
      ),
    );
    const sets = [chunk, ...claimItems.flatMap((output) => (output.Item ? [output.Item] : []))];
    const entries = sets.flatMap((item) =>
      item.link_hashes instanceof Set
        ? [...(item.link_hashes as Set<string>)]
        : item.entries instanceof Set
          ? [...(item.entries as Set<string>)]
          : [],
    );
    // A link found here lives as long as the chunk's latest claim's links (as it did when the
    // chunk held them all).
    const linkExpiresAt = Math.max(0, ...sets.map((item) => Number(item.link_expires_at ?? 0)));
    return { entries, linkExpiresAt };
  }

  async recordOutcome(
    newsletterId: number,
    run: number,
    subscriberId: number,
    outcome: RecipientOutcome,
    at: Date,
  ): Promise<boolean> {
    const names: Record<string, string> = { '#state': 'state', '#at': 'at', '#run': 'run' };
    const values: Record<string, unknown> = {
      ':state': outcome.state,
      ':at': at.toISOString(),
      ':run': run,
      ':id': subscriberId,
    };
    const sets = ['#state = :state', '#at = :at', '#run = :run', 'subscriber_id = :id'];
    const update = (expression: Omit<UpdateCommandInput, 'TableName' | 'Key'>) =>
      new UpdateCommand({
        TableName: this.table,
        Key: keys.recipient(newsletterId, subscriberId),
        ...expression,
      });
    if (outcome.state !== 'sent') {
      if (outcome.state === 'failed') {
        sets.push('#error = :error');
        names['#error'] = 'error';
        values[':error'] = outcome.error.slice(0, MAX_ERROR_CHARACTERS);
      } else {
        sets.push('reason = :reason');
        values[':reason'] = outcome.reason;
      }
      // A skip or a failure only where nothing was recorded, so each is counted once.
      return this.requests.conditional(
        'recordOutcome',
        update({
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_not_exists(#state)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    }
    // A sent mail is always recorded (a second copy's message id replaces the first's), with
    // its link's hash while the record holds fewer than RECORD_LINK_HASHES.
    sets.push('message_id = :message', 'link_expires_at = :expires');
    values[':message'] = outcome.messageId;
    values[':expires'] = outcome.linkExpiresAt;
    const withHash = await this.requests.conditional(
      'recordOutcome',
      update({
        UpdateExpression: `SET ${sets.join(', ')} ADD #hashes :hash`,
        ConditionExpression: 'attribute_not_exists(#hashes) OR size(#hashes) < :most',
        ExpressionAttributeNames: { ...names, '#hashes': 'token_hashes' },
        ExpressionAttributeValues: {
          ...values,
          ':hash': new Set([outcome.tokenHash]),
          ':most': RECORD_LINK_HASHES,
        },
      }),
    );
    if (withHash) return true;
    // The record holds as many hashes as it may: this copy's link is checked on its chunk's
    // claim item, which holds every link minted ([campaign.every-copy-link]).
    return this.requests.conditional(
      'recordOutcome',
      update({
        UpdateExpression: `SET ${sets.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  async settledRecipients(
    space: RecordSpace,
    subscriberIds: readonly number[],
  ): Promise<Set<number>> {
    const unique = [...new Set(subscriberIds)];
    const itemKeys = [
      ...unique.map((id) => keys.recipient(space.newsletterId, id)),
      ...(space.legacy ? unique.map((id) => keys.legacyRecipient(space.newsletterId, id)) : []),
    ];
    const items = await this.#batches.get('settledRecipients', itemKeys, {
      expression: '#sk, #state',
      names: { '#sk': KEY.sort, '#state': 'state' },
    });
    const settled = new Set<number>();
    for (const item of items)
      if (SETTLED_STATES.has(item.state as RecipientState)) settled.add(Number(item[KEY.sort]));
    return settled;
  }

  /**
   * Records with subscriber ids after `after`, in id order: every shard (and the old partition)
   * is read up to `limit`, and the page ends at the lowest id a shard with more got to.
   */
  async recipientPage(
    space: RecordSpace,
    after: number,
    limit: number,
  ): Promise<{ readonly recipients: RecipientRecord[]; readonly more: boolean }> {
    const partitions = recordPartitions(space);
    const perPartition = Math.max(1, Math.ceil(limit / RECIPIENT_SHARDS));
    const reads = await Promise.all(
      partitions.map((partition) =>
        this.requests.send<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
          'query:recipients',
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: '#pk = :pk AND #sk > :after',
            ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
            ExpressionAttributeValues: { ':pk': partition, ':after': recipientSortKey(after) },
            ConsistentRead: true,
            Limit: perPartition,
          }),
        ),
      ),
    );
    const last = shardFrontier(reads, Number.POSITIVE_INFINITY);
    const recipients = reads
      .flatMap((read) => read.Items ?? [])
      .filter((item) => Number(item[KEY.sort]) <= last)
      .map((item) => fromRecipientItem(space.newsletterId, item))
      .sort((a, b) => a.subscriber_id - b.subscriber_id);
    return { recipients, more: last !== Number.POSITIVE_INFINITY };
  }

  async getRecipient(
    space: RecordSpace,
    subscriberId: number,
  ): Promise<RecipientRecord | undefined> {
    const output = await this.requests.send<{ Item?: Item }>(
      'getRecipient',
      new GetCommand({
        TableName: this.table,
        Key: space.legacy
          ? keys.legacyRecipient(space.newsletterId, subscriberId)
          : keys.recipient(space.newsletterId, subscriberId),
        ConsistentRead: true,
      }),
    );
    return output.Item ? fromRecipientItem(space.newsletterId, output.Item) : undefined;
  }

  async countSettled(space: RecordSpace, run: number): Promise<SettledCounts> {
    const counts = { sent: 0, skipped: 0, failed: 0 };
    let from: RecountCursor | undefined = { partition: 0 };
    while (from) {
      const part = await this.countSettledFrom(space, run, from, COUNT_PAGE_ITEMS);
      counts.sent += part.counts.sent;
      counts.skipped += part.counts.skipped;
      counts.failed += part.counts.failed;
      from = part.next;
    }
    return counts;
  }

  async countSettledFrom(
    space: RecordSpace,
    run: number,
    from: RecountCursor,
    maxItems: number,
  ): Promise<RecountStep> {
    const counts = { sent: 0, skipped: 0, failed: 0 };
    const partitions = recordPartitions(space);
    let read = 0;
    let partition = from.partition;
    let after = from.after;
    while (partition < partitions.length) {
      if (read >= maxItems)
        return { counts, read, next: { partition, ...(after ? { after } : {}) } };
      const output = await this.requests.send<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
        'query:recipients',
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': KEY.partition, '#state': 'state', '#run': 'run' },
          ExpressionAttributeValues: { ':pk': partitions[partition] },
          ProjectionExpression: '#state, #run',
          ConsistentRead: true,
          Limit: Math.min(COUNT_PAGE_ITEMS, maxItems - read),
          ...(after
            ? {
                ExclusiveStartKey: {
                  [KEY.partition]: partitions[partition],
                  [KEY.sort]: after,
                },
              }
            : {}),
        }),
      );
      for (const item of output.Items ?? []) {
        read += 1;
        const state = item.state as RecipientState;
        if (Number(item.run ?? 1) !== run) continue;
        if (state === 'sent' || state === 'skipped' || state === 'failed') counts[state] += 1;
      }
      const last = output.LastEvaluatedKey?.[KEY.sort];
      if (last === undefined) {
        partition += 1;
        after = undefined;
      } else after = String(last);
    }
    return { counts, read };
  }

  /**
   * A conditional update of one recipient record, in the spread partitions, or else in the old
   * one: records of runs from before the spread are found where they are.
   */
  async updateRecord(
    operation: string,
    newsletterId: number,
    subscriberId: number,
    update: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName' | 'Key'>,
  ): Promise<boolean> {
    for (const key of [
      keys.recipient(newsletterId, subscriberId),
      keys.legacyRecipient(newsletterId, subscriberId),
    ]) {
      if (
        await this.requests.conditional(
          operation,
          new UpdateCommand({ TableName: this.table, Key: key, ...update }),
        )
      )
        return true;
    }
    return false;
  }
}

/** Every partition an issue's records may be in: the spread ones, and the old one if used. */
function recordPartitions(space: RecordSpace): string[] {
  return [
    ...Array.from({ length: RECIPIENT_SHARDS }, (_, shard) =>
      keys.recipients(space.newsletterId, shard),
    ),
    ...(space.legacy ? [keys.legacyRecipients(space.newsletterId)] : []),
  ];
}

export function fromRecipientItem(newsletterId: number, item: Item): RecipientRecord {
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
