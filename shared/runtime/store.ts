import { DynamoCampaignStore } from '../adapters/store/dynamo-campaign-store.ts';
import { DynamoEngagementErasure } from '../adapters/store/dynamo-engagement-erasure.ts';
import { DynamoEngagementStore } from '../adapters/store/dynamo-engagement-store.ts';
import { DynamoRequests } from '../adapters/store/dynamo-requests.ts';
import { DynamoSendBudget } from '../adapters/store/dynamo-send-budget.ts';
import { DynamoStore } from '../adapters/store/dynamo-store.ts';
import { emailById } from '../adapters/store/subscriber-index.ts';
import type { SubscriberLookup } from '../operations/events/record-events.ts';
import { dynamoDocumentClient } from './dynamodb-client.ts';
import type { Environment } from './environment.ts';

/** The table of the environment, through the container's one DynamoDB client. */
export function tableStore(environment: Environment): DynamoStore {
  return new DynamoStore(dynamoDocumentClient(), environment.tableName);
}

/** The campaign part of the table (recipient records, campaign state), same client. */
export function campaignStore(environment: Environment): DynamoCampaignStore {
  return new DynamoCampaignStore(dynamoDocumentClient(), environment.tableName);
}

/** Opens and clicks (docs/storage.md, "Engagement"), same client. */
export function engagementStore(environment: Environment): DynamoEngagementStore {
  return new DynamoEngagementStore(dynamoDocumentClient(), environment.tableName);
}

/**
 * What a deletion erases of a subscriber's opens and clicks, same client: the deleting
 * functions carry this, not the recorder and the report.
 */
export function engagementErasure(environment: Environment): DynamoEngagementErasure {
  return new DynamoEngagementErasure(
    new DynamoRequests(dynamoDocumentClient()),
    environment.tableName,
  );
}

/** The account's send budget for campaigns ([campaign.budget]), same client. */
export function sendBudget(environment: Environment): DynamoSendBudget {
  return new DynamoSendBudget(dynamoDocumentClient(), environment.tableName);
}

/** Who has a subscriber id now (the `recent` index): tells a change of address from a delete. */
export function subscriberLookup(environment: Environment): SubscriberLookup {
  const requests = new DynamoRequests(dynamoDocumentClient());
  return { emailById: (id) => emailById(requests, environment.tableName, id) };
}
