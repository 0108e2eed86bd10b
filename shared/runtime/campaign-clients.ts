import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsCampaignQueue } from '../adapters/queue/sqs-campaign-queue.ts';
import { CLIENT_OPTIONS } from './client-options.ts';
import type { CampaignEnvironment } from './environment.ts';

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

export { campaignStore } from './store.ts';
