/**
 * The functions the table's stream drives, as functions/routes.ts is for the API: the CDK stack
 * builds each one's function, event source mapping and permissions from this table, and the
 * local cloud runs them from what the stack synthesizes.
 */
import type { RouteAccess } from '../routes.ts';

/** Stream records a consumer receives: the item kind (key prefix), and which events. */
export interface StreamFilter {
  /** `pk` prefix of the items, e.g. `OUTBOX#`. */
  readonly keyPrefix: string;
  /** The items' `sk`, when only one kind of the prefix's items is wanted. */
  readonly sortKey?: string;
  /** Any of these events passes. */
  readonly eventNames: readonly ('INSERT' | 'MODIFY' | 'REMOVE')[];
  /** Only items that have this string attribute after the change. */
  readonly withAttribute?: string;
  /** Only items whose `state` attribute (a string) has one of these values. */
  readonly states?: readonly string[];
}

/** One consumer of the stream. */
export interface StreamConsumer {
  /** Handler file `functions/streams/<name>.ts`; Lambda id. */
  readonly name: string;
  readonly summary: string;
  /** Any filter passes a record (CloudFormation's filters are ORed). */
  readonly filters: readonly StreamFilter[];
  readonly access: RouteAccess;
  /** Records per invocation. */
  readonly batchSize: number;
  /**
   * Retries of a failing batch (halved on each failure) before it is dead-lettered; with the
   * consumer's doubling wait (1 s, capped at 30 s) eight retries ride out about two minutes.
   */
  readonly retries: number;
}

/**
 * Both consumers. DynamoDB streams allow two readers per shard, and these are the two: work
 * that follows a change of the table joins one of them rather than reading the stream a third
 * time (docs/storage.md, "The outbox and the stream").
 */
export const streamConsumers = [
  {
    name: 'table-changes',
    summary:
      'Settles keyless subscribe requests, keeps the subscriber counts, queues the events of changes',
    filters: [
      { keyPrefix: 'REQUEST#', eventNames: ['INSERT'] },
      // Every change of a subscriber, TTL's deletions of expired ones included.
      { keyPrefix: 'SUBSCRIBER#', eventNames: ['INSERT', 'MODIFY', 'REMOVE'] },
      // An issue's item (not its content or pace): its status changes are events.
      { keyPrefix: 'NEWSLETTER#', sortKey: 'newsletter', eventNames: ['INSERT', 'MODIFY'] },
      // A recipient's first open or a click (a send writes neither): engagement events, made
      // only under `individual` tracking ([events.engagement]).
      { keyPrefix: 'RECIPIENTS#', eventNames: ['MODIFY'], withAttribute: 'opened_at' },
      { keyPrefix: 'RECIPIENTS#', eventNames: ['MODIFY'], withAttribute: 'clicked_at' },
    ],
    access: {
      // As the subscribe route, plus deleting the settled request; the counts' items and
      // their marks are written with PutItem and UpdateItem in a transaction.
      table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      // A removed subscriber's id looked up: a change of address is no delete.
      queries: ['recent'],
      sendsMail: false,
      settings: true,
      // The events of the changes go on the events queue (docs/storage.md, "Events").
      eventsQueue: true,
    },
    // Many at once: the counts are one transaction per batch, and requests for different
    // addresses are settled side by side (functions/streams/table-changes.ts).
    batchSize: 100,
    retries: 8,
  },
  {
    name: 'mailer',
    summary: 'Sends the mails of the outbox through SES',
    filters: [
      { keyPrefix: 'OUTBOX#', eventNames: ['INSERT'], states: ['queued'] },
      // `npx newsletter mail retry` sets a failed mail to `requeued`.
      { keyPrefix: 'OUTBOX#', eventNames: ['MODIFY'], states: ['requeued'] },
    ],
    access: {
      // Read the mail and the subscriber; claim (UpdateItem the mail, PutItem the subscriber and
      // its token, DeleteItem retired tokens), mark sent, remove a mail whose subscriber is gone.
      table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      queries: [],
      sendsMail: true,
      settings: true,
    },
    batchSize: 10,
    retries: 8,
  },
] as const satisfies readonly StreamConsumer[];

/** Names of the consumers; a typo fails the type check. */
export type StreamConsumerName = (typeof streamConsumers)[number]['name'];
