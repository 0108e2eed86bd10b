import { DynamoRequests } from '../adapters/store/dynamo-requests.ts';
import { DynamoWebhookStore } from '../adapters/store/dynamo-webhook-store.ts';
import { sendWebhook } from '../adapters/webhooks/webhook-sender.ts';
import type { DeliveryDeps } from '../operations/webhooks/deliver-webhooks.ts';
import { dynamoDocumentClient } from './dynamodb-client.ts';
import { readEnvironment } from './environment.ts';
import { webhookUrlPolicy } from './events-environment.ts';

/** What the webhook functions deliver with: the table's store, the sender, the clock. */
export function webhookDeliveryDeps(): DeliveryDeps {
  const policy = webhookUrlPolicy();
  return {
    webhooks: new DynamoWebhookStore(
      new DynamoRequests(dynamoDocumentClient()),
      readEnvironment().tableName,
    ),
    send: (url, headers, body) => sendWebhook(url, headers, body, policy),
    now: () => new Date(),
  };
}
