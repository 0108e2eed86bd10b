import { createHash } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type EngagementEvent,
  type EngagementFigures,
  type EngagementOutcome,
  type HourFigures,
  hourOf,
  topLinks,
} from '../../domain/engagement/engagement.ts';
import { type CapacityListener, CONDITION_FAILED, DynamoRequests } from './dynamo-requests.ts';
import type { EngagementStore } from './engagement-store-port.ts';
import { KEY, keys } from './table-design.ts';

type Item = Record<string, unknown>;
type TransactItems = NonNullable<TransactWriteCommand['input']['TransactItems']>;

/** Tries at a transaction that lost a race to another (TransactionConflict) or to itself. */
const ATTEMPTS = 4;

/** The part of a link's address its item is keyed by: short, and the same for the same URL. */
export function linkHash(url: string): string {
  return createHash('sha256').update(url).digest('base64url').slice(0, 22);
}

/** Why each item of a cancelled transaction failed (`None` for the ones that did not). */
function cancellation(error: unknown): readonly string[] | undefined {
  if (!(error instanceof Error) || !CONDITION_FAILED.has(error.name)) return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code ?? 'None');
}

/**
 * Opens and clicks in the single table (docs/storage.md, "Engagement"). Each event is one
 * transaction, so a count and the record it counts never part:
 * - the recipient record (`RECIPIENTS#<issue>`) gets `opened_at` or `clicked_at` the first
 *   time, and a click's SNS message id in `click_ids` (a repeated delivery finds it there);
 * - the issue's totals item (`ENGAGEMENT#<issue>` / `totals`) counts unique opens (`opened`),
 *   unique clicks (`clicked`) and all clicks (`clicks`); a link's item counts its clicks;
 * - the subscriber's `ENGAGED#<id>` item lists the issues engaged with, so a deletion can
 *   erase them, and once erased it refuses every later event of that subscriber.
 */
export class DynamoEngagementStore implements EngagementStore {
  readonly #requests: DynamoRequests;

  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
    onCapacity?: CapacityListener,
  ) {
    this.#requests = new DynamoRequests(client, onCapacity);
  }

  async record(event: EngagementEvent): Promise<EngagementOutcome> {
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.#attempt(event);
      if (outcome !== 'conflict') return outcome;
      // Two events of one recipient in two concurrent batches: the loser reads again.
      if (attempt >= ATTEMPTS) throw new Error('engagement: transaction conflict persisted');
    }
  }

  async #attempt(event: EngagementEvent): Promise<EngagementOutcome | 'conflict'> {
    const found = await this.#recipient(event);
    if (!found) return 'unknown';
    const { item: recipient, key } = found;
    const field = event.kind === 'open' ? 'opened_at' : 'clicked_at';
    const clickIds = recipient.click_ids instanceof Set ? recipient.click_ids : new Set();
    if (event.kind === 'click' && clickIds.has(event.eventId)) return 'duplicate';
    const first = recipient[field] === undefined;
    if (event.kind === 'open' && !first) {
      // A later open changes no figure; an earlier one that arrives late moves the first open,
      // and its count to the earlier hour when that is another ([engagement.hours]).
      if (typeof recipient.opened_at === 'string' && event.at < recipient.opened_at)
        return (await this.#moveFirstOpen(event, key, recipient.opened_at)) ? 'repeat' : 'conflict';
      return 'repeat';
    }
    // A click earlier than the first one recorded (events of a batch land in any order) moves
    // the first click, under a condition on the time read, so a race is a conflict.
    const earlierClick =
      event.kind === 'click' &&
      typeof recipient.clicked_at === 'string' &&
      event.at < recipient.clicked_at
        ? recipient.clicked_at
        : undefined;
    const items = this.#writes(event, key, first, earlierClick);
    try {
      await this.#requests.send(
        'recordEngagement',
        new TransactWriteCommand({ TransactItems: items }),
      );
      return first ? 'first' : 'repeat';
    } catch (error) {
      const reasons = cancellation(error);
      if (!reasons) throw error;
      // The ENGAGED item is always last: its condition fails only once the subscriber is gone.
      if (reasons.at(-1) === 'ConditionalCheckFailed') return 'deleted';
      if (reasons.some((code) => code === 'ValidationError')) throw error;
      return 'conflict';
    }
  }

  /**
   * Moves a recipient's first open to an earlier time. In the same hour it is the record's
   * time alone; across hours, one transaction also takes the open from the later hour and gives
   * it to the earlier, on condition the record still holds the time read, so the hours keep
   * summing to `opened` however often the event is delivered. False: the record moved on.
   */
  async #moveFirstOpen(event: EngagementEvent, key: Item, seen: string): Promise<boolean> {
    const from = hourOf(seen);
    const to = hourOf(event.at);
    if (from === to) {
      await this.#requests.conditional(
        'engagementEarlierOpen',
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: 'SET opened_at = :at',
          ConditionExpression: 'opened_at > :at',
          ExpressionAttributeValues: { ':at': event.at },
        }),
      );
      return true;
    }
    const hour = (hourKey: string, amount: number) => ({
      Update: {
        TableName: this.table,
        Key: keys.engagementHour(event.newsletterId, hourKey),
        UpdateExpression: 'ADD opened :amount',
        ExpressionAttributeValues: { ':amount': amount },
      },
    });
    return this.#requests.conditional(
      'engagementEarlierOpen',
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: this.table,
              Key: key,
              UpdateExpression: 'SET opened_at = :at',
              ConditionExpression: 'opened_at = :seen',
              ExpressionAttributeValues: { ':at': event.at, ':seen': seen },
            },
          },
          hour(from, -1),
          hour(to, 1),
        ],
      }),
    );
  }

  /**
   * The recipient record as it stands (strongly consistent: the last event's write counts),
   * with its key: spread over partitions, or in the one partition of runs from before.
   */
  async #recipient(event: EngagementEvent): Promise<{ item: Item; key: Item } | undefined> {
    for (const key of [
      keys.recipient(event.newsletterId, event.subscriberId),
      keys.legacyRecipient(event.newsletterId, event.subscriberId),
    ]) {
      const output = await this.#requests.send<{ Item?: Item }>(
        'engagementRecipient',
        new GetCommand({
          TableName: this.table,
          Key: key,
          ProjectionExpression: 'opened_at, clicked_at, click_ids, message_id',
          ConsistentRead: true,
        }),
      );
      // A planned recipient never sent has no mail to open: only a sent one counts.
      if (output.Item?.message_id !== undefined) return { item: output.Item, key };
    }
    return undefined;
  }

  /** The transaction's items; conditions make a write that raced another fail, not double. */
  #writes(event: EngagementEvent, key: Item, first: boolean, earlierThan?: string): TransactItems {
    const id = event.newsletterId;
    const names = { '#pk': KEY.partition };
    const recipient =
      event.kind === 'open'
        ? {
            UpdateExpression: 'SET opened_at = :at',
            ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(opened_at)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':at': event.at },
          }
        : first
          ? {
              UpdateExpression: 'SET clicked_at = :at ADD click_ids :ids',
              ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(clicked_at)',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ':at': event.at, ':ids': new Set([event.eventId]) },
            }
          : earlierThan !== undefined
            ? {
                UpdateExpression: 'SET clicked_at = :at ADD click_ids :ids',
                ConditionExpression: 'clicked_at = :seen AND NOT contains(click_ids, :id)',
                ExpressionAttributeValues: {
                  ':at': event.at,
                  ':seen': earlierThan,
                  ':id': event.eventId,
                  ':ids': new Set([event.eventId]),
                },
              }
            : {
                UpdateExpression: 'ADD click_ids :ids',
                ConditionExpression:
                  'attribute_exists(clicked_at) AND NOT contains(click_ids, :id)',
                ExpressionAttributeValues: {
                  ':id': event.eventId,
                  ':ids': new Set([event.eventId]),
                },
              };
    const counters =
      event.kind === 'open' ? 'opened :one' : first ? 'clicked :one, clicks :one' : 'clicks :one';
    const link =
      event.kind === 'click' && event.link !== undefined
        ? [
            {
              Update: {
                TableName: this.table,
                Key: keys.engagementLink(id, linkHash(event.link)),
                UpdateExpression: 'SET #url = :url ADD clicks :one',
                ExpressionAttributeNames: { '#url': 'url' },
                ExpressionAttributeValues: { ':url': event.link, ':one': 1 },
              },
            },
          ]
        : [];
    return [
      {
        Update: {
          TableName: this.table,
          Key: key,
          ...recipient,
        },
      },
      {
        Update: {
          TableName: this.table,
          Key: keys.engagementTotals(id),
          UpdateExpression: `ADD ${counters}`,
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      // The hour's count, in the same transaction as the total: exact under retries alike.
      {
        Update: {
          TableName: this.table,
          Key: keys.engagementHour(id, hourOf(event.at)),
          UpdateExpression: `ADD ${event.kind === 'open' ? 'opened' : 'clicks'} :one`,
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      ...link,
      // Last, so a failed condition here reads as "deleted" (see #attempt).
      {
        Update: {
          TableName: this.table,
          Key: keys.engaged(event.subscriberId),
          UpdateExpression: 'ADD issues :issue',
          ConditionExpression: 'attribute_not_exists(erased)',
          ExpressionAttributeValues: { ':issue': new Set([id]) },
        },
      },
    ];
  }

  async figures(newsletterId: number): Promise<EngagementFigures> {
    let opened = 0;
    let clicked = 0;
    let clicks = 0;
    const links: { url: string; clicks: number }[] = [];
    const hours: HourFigures[] = [];
    for await (const page of this.#requests.queryPages('engagementFigures', {
      TableName: this.table,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': KEY.partition },
      ExpressionAttributeValues: { ':pk': keys.engagementTotals(newsletterId)[KEY.partition] },
    })) {
      for (const item of page) {
        if (item[KEY.sort] === 'totals') {
          opened = Number(item.opened ?? 0);
          clicked = Number(item.clicked ?? 0);
          clicks = Number(item.clicks ?? 0);
        } else if (typeof item.url === 'string') {
          links.push({ url: item.url, clicks: Number(item.clicks ?? 0) });
        } else if (String(item[KEY.sort]).startsWith('hour#')) {
          const figures = { opened: Number(item.opened ?? 0), clicks: Number(item.clicks ?? 0) };
          // An hour whose only open moved to an earlier hour holds nothing.
          if (figures.opened > 0 || figures.clicks > 0)
            hours.push({ hour: `${String(item[KEY.sort]).slice(5)}:00:00.000Z`, ...figures });
        }
      }
    }
    // The sort keys are in hour order already; sorted again so no key layout is assumed.
    hours.sort((a, b) => a.hour.localeCompare(b.hour));
    return { opened, clicked, clicks, links: topLinks(links), hours };
  }

  async erase(subscriberId: number): Promise<number> {
    // The tombstone first: from here on every event of this subscriber is refused, and the
    // issues it answers with include any event recorded before it.
    const output = await this.#requests.send<{ Attributes?: Item }>(
      'engagementErase',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.engaged(subscriberId),
        UpdateExpression: 'SET erased = :yes',
        ExpressionAttributeValues: { ':yes': true },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const issues = output.Attributes?.issues;
    const ids = issues instanceof Set ? [...issues].map(Number) : [];
    for (const id of ids) {
      // Where the record is: spread, or in the old partition of runs from before.
      for (const key of [keys.recipient(id, subscriberId), keys.legacyRecipient(id, subscriberId)])
        await this.#requests.conditional(
          'engagementEraseRecipient',
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression: 'REMOVE opened_at, clicked_at, click_ids',
            ConditionExpression: 'attribute_exists(#pk)',
            ExpressionAttributeNames: { '#pk': KEY.partition },
          }),
        );
    }
    if (ids.length > 0)
      await this.#requests.send(
        'engagementErased',
        new UpdateCommand({
          TableName: this.table,
          Key: keys.engaged(subscriberId),
          UpdateExpression: 'REMOVE issues',
        }),
      );
    return ids.length;
  }
}
