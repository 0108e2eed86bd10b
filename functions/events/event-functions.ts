/**
 * The functions of the events (docs/storage.md, "Events"), as functions/streams/consumers.ts is
 * for the stream: the CDK stack builds each one's function, queue and permissions from these
 * entries, and the local cloud runs them from what the stack synthesizes.
 */
import type { RouteAccess } from '../routes.ts';

/** The publisher: the events queue to the stack's bus. */
export const eventPublisher = {
  name: 'event-publisher',
  summary: 'Publishes the events the table stream made on the stack EventBridge bus, once each',
  access: {
    // The marks of events already published: BatchGetItem, then BatchWriteItem.
    table: ['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'],
    queries: [],
    sendsMail: false,
    settings: false,
  },
  /**
   * Messages per invocation and how long Lambda gathers them: an import's thousands of events a
   * second become tens of invocations a second, each putting 10 entries per PutEvents call.
   */
  batchSize: 100,
  batchingWindowSeconds: 1,
  maxConcurrency: 4,
  timeoutSeconds: 30,
  /**
   * Receives before a message goes to the dead-letter queue: with the queue's visibility
   * timeout (twice the function's), a day of EventBridge refusing everything.
   */
  maxReceives: 1_440,
} as const satisfies {
  readonly name: string;
  readonly summary: string;
  readonly access: RouteAccess;
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  readonly maxConcurrency: number;
  readonly timeoutSeconds: number;
  readonly maxReceives: number;
};

/** The webhooks' deliverer: the bus's events, by a rule and a queue, to the endpoints. */
export const webhookDeliverer = {
  name: 'webhook-deliverer',
  summary: 'Delivers the events on the stack bus to the registered webhook endpoints, signed',
  access: {
    // The endpoints (Query of their partition), each delivery logged (a transaction's Puts and
    // the due item's Delete), the endpoint read and its health saved after an attempt.
    table: ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    queries: [],
    sendsMail: false,
    settings: false,
  },
  /** A batch's events are delivered one after another, each attempt up to the sender's 10 s. */
  batchSize: 10,
  batchingWindowSeconds: 1,
  maxConcurrency: 2,
  timeoutSeconds: 300,
  /**
   * Receives before a message goes to the dead-letter queue: a message comes back only when the
   * table was away (a receiver's failure is the log's to retry), so a few.
   */
  maxReceives: 5,
} as const satisfies {
  readonly name: string;
  readonly summary: string;
  readonly access: RouteAccess;
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  readonly maxConcurrency: number;
  readonly timeoutSeconds: number;
  readonly maxReceives: number;
};

/** The webhooks' retry sweep: every minute, the deliveries whose next attempt is due. */
export const webhookRetrier = {
  name: 'webhook-retrier',
  summary: 'Every minute: attempts again the webhook deliveries that are due',
  access: {
    // The due items (Query of 8 shards), their deliveries (BatchGetItem), then as the deliverer.
    table: [
      'dynamodb:Query',
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:DeleteItem',
    ],
    queries: [],
    sendsMail: false,
    settings: false,
  },
  schedule: 'rate(1 minute)',
  timeoutSeconds: 300,
} as const satisfies {
  readonly name: string;
  readonly summary: string;
  readonly access: RouteAccess;
  readonly schedule: string;
  readonly timeoutSeconds: number;
};
