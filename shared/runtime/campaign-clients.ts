import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsCampaignQueue } from '../adapters/queue/sqs-campaign-queue.ts';
import { DynamoCampaignStore } from '../adapters/store/dynamo-campaign-store.ts';
import { CLIENT_OPTIONS } from './client-options.ts';
import { dynamoDocumentClient } from './dynamodb-client.ts';
import type { CampaignEnvironment, Environment } from './environment.ts';

let sqs: SQSClient | undefined;

/** The container's one SQS client, created on first use; only campaign code imports it. */
export function sqsClient(): SQSClient {
  sqs ??= new SQSClient(CLIENT_OPTIONS);
  return sqs;
}

/** The campaign store over the environment's table and the container's DynamoDB client. */
export function campaignStore(environment: Environment): DynamoCampaignStore {
  return new DynamoCampaignStore(dynamoDocumentClient(), environment.tableName);
}

/** The campaign queues of the environment. */
export function campaignQueue(campaign: CampaignEnvironment): SqsCampaignQueue {
  return new SqsCampaignQueue(sqsClient(), {
    plans: campaign.plansQueue,
    ...(campaign.sendsQueue ? { sends: campaign.sendsQueue } : {}),
  });
}
