import { createHash } from 'node:crypto';
import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  type EngagementEvent,
  type EngagementOutcome,
  hourOf,
  type TrackingMode,
} from '../../domain/engagement/engagement.ts';
import { KEY, keys, TTL_ATTRIBUTE } from './table-design.ts';

type Item = Record<string, unknown>;
type TransactItem = NonNullable<TransactWriteCommand['input']['TransactItems']>[number];

/**
 * How long a click's SNS message id is kept to tell a copy of it (days). SNS retries a
 * delivery to SQS for up to 23 days and the engagement queue keeps a message 4, so a copy
 * comes within 27 days of the first; the item then expires (TTL), which costs no write.
 */
export const CLICK_SEEN_DAYS = 30;

/** The part of a link's address its item is keyed by: short, and the same for the same URL. */
export function linkHash(url: string): string {
  return createHash('sha256').update(url).digest('base64url').slice(0, 22);
}

/** What the recorder read before it writes: the recipient record, the tombstone, the mail. */
export interface EngagementSeen {
  /** The sent recipient's record and its key (spread, or in the old partition). */
  readonly record: { readonly key: Item; readonly item: Item };
  /** The mail's own item ([engagement.mail-token]), when the event carries a token. */
  readonly mail?: Item;
}

/** Why an item is in the transaction, so a cancellation reason says what happened. */
export type WriteRole = 'state' | 'record' | 'engaged' | 'click' | 'count';

export interface EngagementWrite {
  readonly role: WriteRole;
  readonly item: TransactItem;
}

/** What one event comes to: nothing to write, or one transaction and its outcome. */
export type EngagementPlan =
  | { readonly done: EngagementOutcome }
  | { readonly writes: readonly EngagementWrite[]; readonly outcome: 'first' | 'repeat' };

/** The counters an event moves, summed per item before they become writes. */
interface Moves {
  opened: number;
  clicked: number;
  clicks: number;
  readonly hours: Map<string, { opened: number; clicks: number }>;
}

/**
 * The writes one event makes (docs/storage.md, "Opens and clicks"), all in one transaction so
 * that a count and the fact it counts never part:
 * - where the mail's first open and click are kept (its `state`): the mail's own item, keyed by
 *   the token it carries, in every mode; for mail sent before tokens, the recipient record,
 *   and only in `individual` (in `counts` such an open is `untracked`: counting it once would
 *   mean storing who opened). Its condition on the time read refuses a second count;
 * - a click's SNS message id as an item of its own (TTL), whose condition refuses a copy;
 * - in `individual`, the recipient record's first open or click and the subscriber's list of
 *   engaged issues (refused once they are erased);
 * - the counters, in the recorder's shard: totals, the hour's, the link's.
 */
export function planEngagement(
  table: string,
  event: EngagementEvent,
  mode: TrackingMode,
  seen: EngagementSeen,
  shard: number,
  now: Date,
): EngagementPlan {
  const individual = mode === 'individual';
  const state =
    event.mail !== undefined
      ? { key: keys.mailEngagement(event.mail), item: seen.mail ?? {}, own: true }
      : individual
        ? { key: seen.record.key, item: seen.record.item, own: false }
        : undefined;
  if (event.kind === 'open' && !state) return { done: 'untracked' };
  const writes: EngagementWrite[] = [];
  const moves: Moves = { opened: 0, clicked: 0, clicks: 0, hours: new Map() };
  const hour = (key: string, field: 'opened' | 'clicks', amount: number): void => {
    const counts = moves.hours.get(key) ?? { opened: 0, clicks: 0 };
    counts[field] += amount;
    moves.hours.set(key, counts);
  };
  if (event.kind === 'click') {
    writes.push({ role: 'click', item: clickSeen(table, event.eventId, now) });
    moves.clicks = 1;
    hour(hourOf(event.at), 'clicks', 1);
  }
  let first = false;
  if (state) {
    const field = event.kind === 'open' ? 'opened_at' : 'clicked_at';
    const before =
      typeof state.item[field] === 'string' ? (state.item[field] as string) : undefined;
    // Events of a batch land in any order: an earlier one arriving late moves the first time.
    const moved = before === undefined || event.at < before;
    if (!moved && event.kind === 'open') return { done: 'repeat' };
    if (moved) {
      first = before === undefined;
      writes.push({
        role: 'state',
        item: firstTime(table, state.key, field, event.at, before, !state.own),
      });
      if (first) {
        if (event.kind === 'open') {
          moves.opened = 1;
          hour(hourOf(event.at), 'opened', 1);
        } else moves.clicked = 1;
      } else if (
        event.kind === 'open' &&
        before !== undefined &&
        hourOf(before) !== hourOf(event.at)
      ) {
        // The first open's count goes with it to the earlier hour ([engagement.hours]).
        hour(hourOf(before), 'opened', -1);
        hour(hourOf(event.at), 'opened', 1);
      }
      if (individual) {
        if (state.own)
          writes.push({
            role: 'record',
            item: recordTime(table, seen.record.key, field, event.at),
          });
        writes.push({ role: 'engaged', item: engaged(table, event) });
      }
    }
  }
  writes.push(...counters(table, event, moves, shard));
  return { writes, outcome: first ? 'first' : 'repeat' };
}

/** The click's own item: its condition makes a copy of the same SNS message fail. */
function clickSeen(table: string, eventId: string, now: Date): TransactItem {
  return {
    Put: {
      TableName: table,
      Item: {
        ...keys.clickSeen(eventId),
        [TTL_ATTRIBUTE]: Math.floor(now.getTime() / 1000) + CLICK_SEEN_DAYS * 86_400,
      },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': KEY.partition },
    },
  };
}

/**
 * A first open or click set, or moved earlier, on condition the time is still the one read;
 * on a record (mail sent before tokens) its old list of click ids goes too.
 */
function firstTime(
  table: string,
  key: Item,
  field: 'opened_at' | 'clicked_at',
  at: string,
  before: string | undefined,
  onRecord: boolean,
): TransactItem {
  return {
    Update: {
      TableName: table,
      Key: key,
      UpdateExpression: `SET #field = :at${onRecord ? ' REMOVE click_ids' : ''}`,
      ConditionExpression:
        before === undefined
          ? `${onRecord ? 'attribute_exists(#pk) AND ' : ''}attribute_not_exists(#field)`
          : '#field = :before',
      ExpressionAttributeNames: {
        '#field': field,
        ...(onRecord && before === undefined ? { '#pk': KEY.partition } : {}),
      },
      ExpressionAttributeValues: {
        ':at': at,
        ...(before === undefined ? {} : { ':before': before }),
      },
    },
  };
}

/** `individual`: the record shows what the mail's state says (and sheds old click ids). */
function recordTime(
  table: string,
  key: Item,
  field: 'opened_at' | 'clicked_at',
  at: string,
): TransactItem {
  return {
    Update: {
      TableName: table,
      Key: key,
      UpdateExpression: 'SET #field = :at REMOVE click_ids',
      ConditionExpression: 'attribute_exists(#pk)',
      ExpressionAttributeNames: { '#field': field, '#pk': KEY.partition },
      ExpressionAttributeValues: { ':at': at },
    },
  };
}

/** The subscriber's engaged issues, for their erasure; refused once they are erased. */
function engaged(table: string, event: EngagementEvent): TransactItem {
  return {
    Update: {
      TableName: table,
      Key: keys.engaged(event.subscriberId),
      UpdateExpression: 'ADD issues :issue',
      ConditionExpression: 'attribute_not_exists(erased)',
      ExpressionAttributeValues: { ':issue': new Set([event.newsletterId]) },
    },
  };
}

/** The counters an event moves, in one shard: totals, each hour moved, the link. */
function counters(
  table: string,
  event: EngagementEvent,
  moves: Moves,
  shard: number,
): EngagementWrite[] {
  const id = event.newsletterId;
  const add = (key: Item, amounts: Record<string, number>, url?: string): EngagementWrite => {
    const moved = Object.entries(amounts).filter(([, amount]) => amount !== 0);
    return {
      role: 'count',
      item: {
        Update: {
          TableName: table,
          Key: key,
          UpdateExpression:
            (url === undefined ? '' : 'SET #url = :url ') +
            `ADD ${moved.map(([name]) => `${name} :${name}`).join(', ')}`,
          ...(url === undefined ? {} : { ExpressionAttributeNames: { '#url': 'url' } }),
          ExpressionAttributeValues: {
            ...Object.fromEntries(moved.map(([name, amount]) => [`:${name}`, amount])),
            ...(url === undefined ? {} : { ':url': url }),
          },
        },
      },
    };
  };
  const writes: EngagementWrite[] = [];
  const { opened, clicked, clicks } = moves;
  if (opened !== 0 || clicked !== 0 || clicks !== 0)
    writes.push(add(keys.engagementTotals(id, shard), { opened, clicked, clicks }));
  for (const [hourKey, amounts] of moves.hours)
    if (amounts.opened !== 0 || amounts.clicks !== 0)
      writes.push(add(keys.engagementHour(id, hourKey, shard), amounts));
  if (event.kind === 'click' && event.link !== undefined)
    writes.push(
      add(keys.engagementLink(id, linkHash(event.link), shard), { clicks: 1 }, event.link),
    );
  return writes;
}
