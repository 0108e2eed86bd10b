/**
 * The function SES's open and click events drive, as functions/feedback/feedback-function.ts is
 * for bounces and complaints: the CDK stack builds its function, its queue and permissions from
 * this entry, and the local cloud runs it from what the stack synthesizes.
 */
import type { RouteAccess } from '../routes.ts';

/** The engagement recorder: opens and clicks, through the engagement topic and its queue. */
export const engagementRecorder = {
  /** Handler file `functions/engagement/<name>.ts`; Lambda id. */
  name: 'engagement-recorder',
  summary: 'Records the opens and clicks SES reports for campaign mail, in batches',
  access: {
    // Read the recipient record, the subscriber's tombstone and the mail's state (BatchGetItem),
    // then one transaction per event (Update and Put items: the mail's state, the click's
    // item, the counters, and in `individual` the record and engaged issues); note per-person
    // writes to come (UpdateItem).
    table: ['dynamodb:BatchGetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
    queries: [],
    sendsMail: false,
    // `campaign.tracking`: what may be stored ([engagement.modes]).
    settings: true,
  },
  /**
   * Events per invocation and how long Lambda gathers them: a burst (most opens come in the
   * first hour) becomes few invocations, and two at most run at once, so DynamoDB sees a steady
   * trickle rather than the burst (docs/storage.md, "Engagement").
   */
  batchSize: 100,
  batchingWindowSeconds: 5,
  maxConcurrency: 2,
  timeoutSeconds: 60,
} as const satisfies {
  readonly name: string;
  readonly summary: string;
  readonly access: RouteAccess;
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  readonly maxConcurrency: number;
  readonly timeoutSeconds: number;
};

/**
 * The engagement eraser ([engagement.switch]): on a schedule, once `campaign.tracking` has left
 * `individual`, it erases every per-person open and click stored, in runs of bounded work.
 */
export const engagementEraser = {
  name: 'engagement-eraser',
  summary: 'Erases per-person opens and clicks once tracking is no longer individual',
  access: {
    // Its state (GetItem, UpdateItem); the issues that went out (Query `recent`); their
    // records that hold a first open or click (Query on the table); the removals (UpdateItem
    // of the records and of the subscribers' engaged issues).
    table: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
    queries: ['recent'],
    sendsMail: false,
    settings: true,
  },
  /** Idle runs cost one settings read and one GetItem; a switch is acted on within this. */
  schedule: 'rate(10 minutes)',
  timeoutSeconds: 300,
  /** Work per run: the walk is saved after every page, so a run ends well inside its timeout. */
  budgetSeconds: 240,
} as const satisfies {
  readonly name: string;
  readonly summary: string;
  readonly access: RouteAccess;
  readonly schedule: string;
  readonly timeoutSeconds: number;
  readonly budgetSeconds: number;
};
