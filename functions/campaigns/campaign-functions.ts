/**
 * The functions of the campaign engine, as functions/routes.ts is for the API: the CDK stack
 * builds each one's function, trigger and permissions from this table, and the local cloud runs
 * them from what the stack synthesizes (docs/storage.md, "Campaigns").
 */
import type { CampaignQueueName, RouteAccess } from '../routes.ts';

/**
 * What starts a campaign function: messages of one of the queues, a rule's schedule, or the
 * one-time EventBridge Scheduler schedules operators create (`scheduler`: the stack's schedule
 * group and a role that may invoke only this function).
 */
export type CampaignTrigger =
  | {
      readonly queue: CampaignQueueName;
      /** Messages per invocation. */
      readonly batchSize: number;
    }
  | { readonly schedule: string }
  | { readonly scheduler: 'at' };

/** One function of the engine. */
export interface CampaignFunction {
  /** Handler file `functions/campaigns/<name>.ts`; Lambda id. */
  readonly name: string;
  readonly summary: string;
  readonly trigger: CampaignTrigger;
  readonly access: RouteAccess;
  /** Whether it needs the number of workers (its pacing splits the rate among them). */
  readonly paced: boolean;
}

export const campaignFunctions = [
  {
    name: 'campaign-planner',
    summary: 'Plans campaign recipients page by page and queues them for the workers',
    // One page at a time per campaign: the FIFO queue's message group keeps them in order.
    trigger: { queue: 'plans', batchSize: 1 },
    access: {
      // Read the campaign (GetItem), page the list index (Query on the table), read which
      // recipients exist (BatchGetItem, "send to the new"), write the records (BatchWriteItem),
      // commit the page (UpdateItem); a walk reads the records (Query on the table), their
      // addresses (Query `recent`) and settles the ones whose subscriber is gone (UpdateItem).
      table: [
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:Query',
      ],
      queries: ['recent'],
      sendsMail: false,
      settings: true,
      queues: ['plans', 'sends'],
      sendQuota: true,
    },
    paced: false,
  },
  {
    name: 'campaign-sender',
    summary: 'Sends campaign mail to the queued recipients, paced, claiming each with a lease',
    trigger: { queue: 'sends', batchSize: 1 },
    access: {
      // Read the campaign and its content (GetItem), the subscribers (BatchGetItem; one whose
      // address changed since planning by their id, Query `recent`), claim, settle, skip and
      // release recipients and count (UpdateItem), note a claim's links (PutItem); put back
      // unsent ones; ask the planner for more of the campaign's chunks as its own are done.
      table: [
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
      ],
      queries: ['recent'],
      sendsMail: true,
      settings: true,
      queues: ['sends', 'plans'],
    },
    paced: true,
  },
  {
    name: 'campaign-sweeper',
    summary: 'Watches sending campaigns: stall alarms, recounts and repairs',
    trigger: { schedule: 'rate(1 minute)' },
    access: {
      // Find sending, paused and scheduled campaigns (Query `recent`), read them (GetItem),
      // recount their records (Query on the table), correct the counts or end the run
      // (UpdateItem), queue a repair or a resume; ask SES whether a campaign paused for the
      // quota has room again.
      table: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
      queries: ['recent'],
      sendsMail: false,
      settings: true,
      queues: ['plans'],
      sendQuota: true,
    },
    paced: false,
  },
  {
    name: 'campaign-starter',
    summary: "Starts a scheduled issue's send when its schedule fires, unless it fires late",
    trigger: { scheduler: 'at' },
    access: {
      // Read the issue, its content and the subscriber counter (GetItem); the campaigns sending
      // already (Query `recent`, [campaign.overlap]); start the run or mark the schedule missed
      // (UpdateItem); queue the first page as `newsletters send` does.
      table: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      queries: ['recent'],
      sendsMail: false,
      settings: true,
      queues: ['plans'],
    },
    paced: false,
  },
] as const satisfies readonly CampaignFunction[];

/** Names of the campaign functions; a typo fails the type check. */
export type CampaignFunctionName = (typeof campaignFunctions)[number]['name'];
