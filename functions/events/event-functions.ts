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
