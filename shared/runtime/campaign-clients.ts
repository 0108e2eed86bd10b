import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsCampaignQueue } from '../adapters/queue/sqs-campaign-queue.ts';
import { EventBridgeCampaignScheduler } from '../adapters/scheduler/eventbridge-campaign-scheduler.ts';
import { CLIENT_OPTIONS } from './client-options.ts';
import type { CampaignEnvironment, SchedulerEnvironment } from './environment.ts';

let sqs: SQSClient | undefined;

/** The container's one SQS client, created on first use; only campaign code imports it. */
export function sqsClient(): SQSClient {
  sqs ??= new SQSClient(CLIENT_OPTIONS);
  return sqs;
}

/** The campaign queues of the environment. */
export function campaignQueue(campaign: CampaignEnvironment): SqsCampaignQueue {
  return new SqsCampaignQueue(sqsClient(), {
    plans: campaign.plansQueue,
    ...(campaign.sendsQueue ? { sends: campaign.sendsQueue } : {}),
  });
}

/** EventBridge Scheduler for scheduled sends; its client is created only by who schedules. */
export function campaignScheduler(target: SchedulerEnvironment): EventBridgeCampaignScheduler {
  return new EventBridgeCampaignScheduler(new SchedulerClient(CLIENT_OPTIONS), target);
}

export { campaignStore, sendBudget } from './store.ts';
