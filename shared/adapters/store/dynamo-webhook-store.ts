import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { WebhookEndpoint } from '../../domain/webhooks/webhook-endpoint.ts';
import type { Delivery, WebhookStore } from '../webhooks/webhook-ports.ts';
import { DynamoBatches } from './dynamo-batches.ts';
import { type DynamoRequests, epochSeconds } from './dynamo-requests.ts';
import { KEY, TTL_ATTRIBUTE } from './table-design.ts';

/** How long a delivery stays in its endpoint's log (TTL): past its retries (41.6 h), to replay. */
export const DELIVERY_LOG_DAYS = 30;

/**
 * Partitions of the due deliveries: an import's events, each a delivery per endpoint, are
 * written at its pace, more than one partition's 1,000 writes a second.
 */
export const DUE_SHARDS = 8;

type Item = Record<string, unknown>;

/**
 * The webhook items' keys (docs/storage.md, "Keys and items"), here rather than in
 * table-design.ts's `keys`: an object literal is bundled whole into every function that reads
 * the table, and only this adapter writes these.
 */
const keys = {
  /** A webhook endpoint: all of them in one partition, a Query lists them (at most 20). */
  webhookEndpoint: (id: string) => ({
    [KEY.partition]: 'WEBHOOKS',
    [KEY.sort]: `endpoint#${id}`,
  }),
  /** One event's delivery to an endpoint, its log entry: the log reads in event-time order. */
  webhookDelivery: (endpointId: string, eventTime: string, eventId: string) => ({
    [KEY.partition]: `WEBHOOK#${endpointId}`,
    [KEY.sort]: `delivery#${eventTime}#${eventId}`,
  }),
  /** That a pending delivery is due at `at`: the retry sweep queries each shard up to now. */
  webhookDue: (
    shard: number,
    at: string,
    endpointId: string,
    eventTime: string,
    eventId: string,
  ) => ({
    [KEY.partition]: `WEBHOOK_DUE#${shard}`,
    [KEY.sort]: `${at}#${endpointId}#${eventTime}#${eventId}`,
  }),
};

/** The due shard of an event: the same for every attempt of its deliveries. */
function shardOf(eventId: string): number {
  let hash = 0;
  for (const char of eventId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % DUE_SHARDS;
}

const dueKey = (delivery: Delivery, at: string): Item =>
  keys.webhookDue(
    shardOf(delivery.event_id),
    at,
    delivery.endpoint_id,
    delivery.event_time,
    delivery.event_id,
  );

const deliveryKey = (delivery: Delivery): Item =>
  keys.webhookDelivery(delivery.endpoint_id, delivery.event_time, delivery.event_id);

/** Strips an item's keys and TTL: what is left is the record as the port has it. */
function recordOf<T>(item: Item): T {
  const { [KEY.partition]: _pk, [KEY.sort]: _sk, [TTL_ATTRIBUTE]: _ttl, ...record } = item;
  return record as T;
}

/**
 * An endpoint as an item: its id as `endpoint_id`, since `id` is the `recent` index's numeric
 * sort key and a string there is refused.
 */
function endpointItem({ id, ...endpoint }: WebhookEndpoint): Item {
  return { ...keys.webhookEndpoint(id), ...endpoint, endpoint_id: id };
}

function endpointOf(item: Item): WebhookEndpoint {
  const { endpoint_id: id, ...rest } = recordOf<
    Omit<WebhookEndpoint, 'id'> & { endpoint_id: string }
  >(item);
  return { id, ...rest };
}

/**
 * Webhook endpoints and their delivery logs in the table (docs/storage.md, "Webhooks"): an
 * endpoint under `WEBHOOKS`, each delivery under `WEBHOOK#<endpoint>` in event-time order, and
 * a pending one's next attempt as a `WEBHOOK_DUE#<shard>` item the retry sweep queries.
 */
export class DynamoWebhookStore implements WebhookStore {
  readonly #batches: DynamoBatches;

  constructor(
    private readonly requests: DynamoRequests,
    private readonly table: string,
  ) {
    this.#batches = new DynamoBatches(requests, table);
  }

  async listEndpoints(): Promise<readonly WebhookEndpoint[]> {
    const found: WebhookEndpoint[] = [];
    for await (const page of this.requests.queryPages('listWebhookEndpoints', {
      TableName: this.table,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': KEY.partition },
      ExpressionAttributeValues: { ':pk': 'WEBHOOKS' },
    }))
      found.push(...page.map(endpointOf));
    return found;
  }

  async getEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    const output = await this.requests.send<{ Item?: Item }>(
      'getWebhookEndpoint',
      new GetCommand({
        TableName: this.table,
        Key: keys.webhookEndpoint(id),
        ConsistentRead: true,
      }),
    );
    return output.Item ? endpointOf(output.Item) : undefined;
  }

  async saveEndpoint(endpoint: WebhookEndpoint): Promise<void> {
    await this.requests.send(
      'saveWebhookEndpoint',
      new PutCommand({
        TableName: this.table,
        Item: endpointItem(endpoint),
      }),
    );
  }

  /** The endpoint goes; its log and due items expire by TTL, and a sweep skips them. */
  async deleteEndpoint(id: string): Promise<void> {
    await this.requests.send(
      'deleteWebhookEndpoint',
      new DeleteCommand({ TableName: this.table, Key: keys.webhookEndpoint(id) }),
    );
  }

  async addDelivery(delivery: Delivery): Promise<boolean> {
    const expires = epochSeconds(new Date(delivery.created)) + DELIVERY_LOG_DAYS * 86_400;
    return this.requests.conditional(
      'addWebhookDelivery',
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.table,
              Item: { ...deliveryKey(delivery), ...delivery, [TTL_ATTRIBUTE]: expires },
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': KEY.partition },
            },
          },
          ...(delivery.next_attempt_at
            ? [
                {
                  Put: {
                    TableName: this.table,
                    Item: {
                      ...dueKey(delivery, delivery.next_attempt_at),
                      [TTL_ATTRIBUTE]: expires,
                    },
                  },
                },
              ]
            : []),
        ],
      }),
    );
  }

  /**
   * The write holds only while the item is as `before` was read (its attempts count): a sweep
   * and a replay attempting the same delivery at once cannot overwrite each other's entry, nor
   * leave a due item that nothing deletes.
   */
  async saveDelivery(delivery: Delivery, before: Delivery): Promise<boolean> {
    const expires = epochSeconds(new Date(delivery.created)) + DELIVERY_LOG_DAYS * 86_400;
    const next = delivery.status === 'pending' ? delivery.next_attempt_at : undefined;
    const moved = before.next_attempt_at !== next;
    return this.requests.conditional(
      'saveWebhookDelivery',
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.table,
              Item: { ...deliveryKey(delivery), ...delivery, [TTL_ATTRIBUTE]: expires },
              ConditionExpression: '#attempts = :attempts',
              ExpressionAttributeNames: { '#attempts': 'attempts' },
              ExpressionAttributeValues: { ':attempts': before.attempts },
            },
          },
          ...(moved && before.next_attempt_at
            ? [{ Delete: { TableName: this.table, Key: dueKey(before, before.next_attempt_at) } }]
            : []),
          ...(moved && next
            ? [
                {
                  Put: {
                    TableName: this.table,
                    Item: { ...dueKey(delivery, next), [TTL_ATTRIBUTE]: expires },
                  },
                },
              ]
            : []),
        ],
      }),
    );
  }

  async getDelivery(
    endpointId: string,
    eventTime: string,
    eventId: string,
  ): Promise<Delivery | undefined> {
    const output = await this.requests.send<{ Item?: Item }>(
      'getWebhookDelivery',
      new GetCommand({
        TableName: this.table,
        Key: keys.webhookDelivery(endpointId, eventTime, eventId),
        ConsistentRead: true,
      }),
    );
    return output.Item ? recordOf<Delivery>(output.Item) : undefined;
  }

  async deliveriesOf(
    endpointId: string,
    limit: number,
    since?: Date,
  ): Promise<readonly Delivery[]> {
    const found: Delivery[] = [];
    for await (const page of this.requests.queryPages('listWebhookDeliveries', {
      TableName: this.table,
      KeyConditionExpression: since
        ? '#pk = :pk AND #sk >= :from'
        : '#pk = :pk AND begins_with(#sk, :from)',
      ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
      ExpressionAttributeValues: {
        ':pk': `WEBHOOK#${endpointId}`,
        ':from': since ? `delivery#${since.toISOString()}` : 'delivery#',
      },
      ScanIndexForward: false,
      Limit: limit,
    })) {
      found.push(...page.map((item) => recordOf<Delivery>(item)));
      if (found.length >= limit) break;
    }
    return found.slice(0, limit);
  }

  async dueDeliveries(now: Date): Promise<readonly Delivery[]> {
    const due: Item[] = [];
    for (let shard = 0; shard < DUE_SHARDS; shard += 1)
      for await (const page of this.requests.queryPages('dueWebhookDeliveries', {
        TableName: this.table,
        KeyConditionExpression: '#pk = :pk AND #sk <= :now',
        ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
        // Past every key that starts with the time `now`.
        ExpressionAttributeValues: {
          ':pk': `WEBHOOK_DUE#${shard}`,
          ':now': `${now.toISOString()}~`,
        },
      }))
        due.push(...page);
    const deliveries = await this.#batches.get(
      'dueWebhookDeliveries',
      due.map((item) => keys.webhookDelivery(...deliveryOfDue(String(item[KEY.sort])))),
    );
    return deliveries
      .map((item) => recordOf<Delivery>(item))
      .filter((delivery) => delivery.status === 'pending')
      .sort((a, b) => (a.next_attempt_at ?? '').localeCompare(b.next_attempt_at ?? ''));
  }
}

/** The delivery a due item names: its sort key is the time, the endpoint, the event's time and id. */
function deliveryOfDue(sortKey: string): [string, string, string] {
  const [, endpointId = '', eventTime = '', ...eventId] = sortKey.split('#');
  return [endpointId, eventTime, eventId.join('#')];
}
