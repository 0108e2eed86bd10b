import { setTimeout as sleep } from 'node:timers/promises';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type EngagementEvent,
  type EngagementFigures,
  type EngagementOutcome,
  type HourFigures,
  type LinkClicks,
  type TrackingMode,
  topLinks,
} from '../../domain/engagement/engagement.ts';
import { DynamoBatches, inParallel } from './dynamo-batches.ts';
import { DynamoEngagementErasure } from './dynamo-engagement-erasure.ts';
import { type CapacityListener, CONDITION_FAILED, DynamoRequests } from './dynamo-requests.ts';
import type { EngagementStore, RecordOptions } from './engagement-store-port.ts';
import { type EngagementSeen, type EngagementWrite, planEngagement } from './engagement-writes.ts';
import { ENGAGEMENT_SHARDS, KEY, keys } from './table-design.ts';

type Item = Record<string, unknown>;

/**
 * Tries at an event whose transaction lost a race: to another transaction on one of its items
 * (TransactionConflict), to a throttled partition, or to an event of the same mail that moved
 * its state in between. Each try reads again, waits longer, and takes another counter shard.
 */
const ATTEMPTS = 12;
/** The wait before the second try (ms), doubled each time up to the cap; "full jitter". */
const BACKOFF_MS = 10;
const BACKOFF_CAP_MS = 1_000;
/** Counter partitions a report reads at once. */
const READ_PARALLEL = 8;

/** What is read of each item before an event is recorded. */
const PROJECTION = {
  expression: '#pk, #sk, message_id, opened_at, clicked_at, erased',
  names: { '#pk': KEY.partition, '#sk': KEY.sort },
};

/** Why each item of a cancelled transaction failed (`None` for the ones that did not). */
function cancellation(error: unknown): readonly string[] | undefined {
  if (!(error instanceof Error) || !CONDITION_FAILED.has(error.name)) return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code ?? 'None');
}

/** Options the tests and the benches set; the defaults are what a function uses. */
export interface EngagementStoreOptions {
  readonly onCapacity?: CapacityListener;
  readonly now?: () => Date;
  readonly pause?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/**
 * Opens and clicks in the single table (docs/storage.md, "Opens and clicks"). Each event is
 * one transaction (engagement-writes.ts): the mail's state and the counters it moves change
 * together or not at all, and no item takes every event of an issue: the counters are spread
 * over ENGAGEMENT_SHARDS partitions and summed when read. Every item written has a bounded
 * size: a mail's state holds two times, a click's item its id, a counter a few numbers.
 */
export class DynamoEngagementStore implements EngagementStore {
  readonly #requests: DynamoRequests;
  readonly #batches: DynamoBatches;
  readonly #now: () => Date;
  readonly #pause: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #erasure: DynamoEngagementErasure;

  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
    options: EngagementStoreOptions = {},
  ) {
    this.#requests = new DynamoRequests(client, options.onCapacity);
    this.#batches = new DynamoBatches(this.#requests, table);
    this.#erasure = new DynamoEngagementErasure(this.#requests, table);
    this.#now = options.now ?? (() => new Date());
    this.#pause = options.pause ?? ((ms) => sleep(ms).then(() => undefined));
    this.#random = options.random ?? Math.random;
  }

  async record(event: EngagementEvent, options: RecordOptions): Promise<EngagementOutcome> {
    // `off`: nothing that still comes (mail sent before the switch) is kept.
    if (options.mode === 'off') return 'untracked';
    let shard = options.shard ?? this.#shard();
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.#attempt(event, options.mode, shard);
      if (outcome !== 'conflict') return outcome;
      if (attempt >= ATTEMPTS)
        throw new Error(`engagement: the event lost ${ATTEMPTS} races in a row`);
      await this.#pause(this.#random() * Math.min(BACKOFF_CAP_MS, BACKOFF_MS * 2 ** attempt));
      shard = this.#shard();
    }
  }

  #shard(): number {
    return Math.floor(this.#random() * ENGAGEMENT_SHARDS) % ENGAGEMENT_SHARDS;
  }

  async #attempt(
    event: EngagementEvent,
    mode: TrackingMode,
    shard: number,
  ): Promise<EngagementOutcome | 'conflict'> {
    const seen = await this.#read(event);
    if (seen === 'unknown' || seen === 'deleted') return seen;
    const plan = planEngagement(this.table, event, mode, seen, shard, this.#now());
    if ('done' in plan) return plan.done;
    try {
      await this.#requests.send(
        'recordEngagement',
        new TransactWriteCommand({ TransactItems: plan.writes.map((write) => write.item) }),
      );
      return plan.outcome;
    } catch (error) {
      const reasons = cancellation(error);
      if (!reasons || reasons.includes('ValidationError')) throw error;
      return refused(plan.writes, reasons);
    }
  }

  /**
   * The recipient record (a sent recipient's: only they can open or click), the subscriber's
   * tombstone and the mail's own item, in one strongly consistent read; the record of a run
   * from before the records were spread is looked for only when the spread one is missing.
   */
  async #read(event: EngagementEvent): Promise<EngagementSeen | 'unknown' | 'deleted'> {
    const recordKey = keys.recipient(event.newsletterId, event.subscriberId);
    const tombstone = keys.engaged(event.subscriberId);
    const mailKey = event.mail === undefined ? undefined : keys.mailEngagement(event.mail);
    const items = await this.#batches.get(
      'engagementRead',
      [recordKey, tombstone, ...(mailKey ? [mailKey] : [])],
      PROJECTION,
    );
    const find = (key: Item): Item | undefined =>
      items.find(
        (item) => item[KEY.partition] === key[KEY.partition] && item[KEY.sort] === key[KEY.sort],
      );
    if (find(tombstone)?.erased !== undefined) return 'deleted';
    let record = { key: recordKey, item: find(recordKey) };
    if (record.item?.message_id === undefined) {
      const legacy = keys.legacyRecipient(event.newsletterId, event.subscriberId);
      const [item] = await this.#batches.get('engagementRecipient', [legacy], PROJECTION);
      record = { key: legacy, item };
    }
    const item = record.item;
    // A planned recipient never sent has no mail to open.
    if (item?.message_id === undefined) return 'unknown';
    const mail = mailKey ? find(mailKey) : undefined;
    return { record: { key: record.key, item }, ...(mail ? { mail } : {}) };
  }

  async figures(newsletterId: number): Promise<EngagementFigures> {
    let opened = 0;
    let clicked = 0;
    let clicks = 0;
    const links = new Map<string, LinkClicks>();
    const hours = new Map<string, { opened: number; clicks: number }>();
    // The shards, and the one partition of counts recorded before they were spread.
    const partitions = [
      keys.engagement(newsletterId),
      ...Array.from({ length: ENGAGEMENT_SHARDS }, (_, shard) =>
        keys.engagement(newsletterId, shard),
      ),
    ];
    await inParallel(partitions, READ_PARALLEL, async (partition) => {
      for await (const page of this.#requests.queryPages('engagementFigures', {
        TableName: this.table,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': KEY.partition },
        ExpressionAttributeValues: { ':pk': partition },
        ConsistentRead: true,
      })) {
        for (const item of page) {
          const sort = String(item[KEY.sort]);
          if (sort === 'totals') {
            opened += Number(item.opened ?? 0);
            clicked += Number(item.clicked ?? 0);
            clicks += Number(item.clicks ?? 0);
          } else if (typeof item.url === 'string') {
            const link = links.get(sort) ?? { url: item.url, clicks: 0 };
            links.set(sort, { url: link.url, clicks: link.clicks + Number(item.clicks ?? 0) });
          } else if (sort.startsWith('hour#')) {
            const hour = hours.get(sort) ?? { opened: 0, clicks: 0 };
            hour.opened += Number(item.opened ?? 0);
            hour.clicks += Number(item.clicks ?? 0);
            hours.set(sort, hour);
          }
        }
      }
    });
    const hourList: HourFigures[] = [...hours]
      // An hour whose only open moved to an earlier hour holds nothing.
      .filter(([, figures]) => figures.opened > 0 || figures.clicks > 0)
      .map(([sort, figures]) => ({ hour: `${sort.slice(5)}:00:00.000Z`, ...figures }))
      .sort((a, b) => a.hour.localeCompare(b.hour));
    return { opened, clicked, clicks, links: topLinks([...links.values()]), hours: hourList };
  }

  async markPersonal(): Promise<void> {
    await this.#requests.send(
      'engagementPersonal',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.personalEngagement(),
        UpdateExpression: 'ADD marks :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  }

  erase(subscriberId: number): Promise<number> {
    return this.#erasure.erase(subscriberId);
  }
}

/**
 * What a cancelled transaction means, from the reasons of its items: a click already recorded
 * (its SNS message came again), a subscriber erased meanwhile, or a race to read again and
 * retry (another transaction on one of its items, a throttled partition, a state that moved).
 */
function refused(
  writes: readonly EngagementWrite[],
  reasons: readonly string[],
): EngagementOutcome | 'conflict' {
  const failed = new Set(
    writes
      .filter((_, index) => reasons[index] === 'ConditionalCheckFailed')
      .map((write) => write.role),
  );
  if (failed.has('click')) return 'duplicate';
  if (failed.has('engaged')) return 'deleted';
  return 'conflict';
}
