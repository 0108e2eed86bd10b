import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ClientKeyPermission, ClientKeyRecord } from '../../domain/client-key.ts';
import type { ClientKeyStore } from './client-key-store-port.ts';
import { DynamoRequests } from './dynamo-requests.ts';
import { INDEX, KEY, keys } from './table-design.ts';

type Item = Record<string, unknown>;

/** `recent` index partition of the keys, so the CLI lists them without a scan. */
const CLIENT_KEYS = 'client_key';

/** Most keys BatchGetItem reads in one call. */
const BATCH_GET_LIMIT = 100;

/**
 * The named keys of API v2 in the table (docs/storage.md): one item per key, keyed by the
 * public `client_key`, holding the SHA-256 of the secret and the permission.
 */
export class DynamoClientKeyStore implements ClientKeyStore {
  readonly #requests: DynamoRequests;

  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.#requests = new DynamoRequests(client);
  }

  async getClientKey(clientKey: string): Promise<ClientKeyRecord | undefined> {
    const output = await this.#requests.send<{ Item?: Item }>(
      'getClientKey',
      // Strongly consistent: a key just revoked must not be read as live from a stale replica.
      new GetCommand({
        TableName: this.table,
        Key: keys.clientKey(clientKey),
        ConsistentRead: true,
      }),
    );
    return output.Item ? fromItem(output.Item) : undefined;
  }

  createClientKey(record: ClientKeyRecord): Promise<boolean> {
    return this.#requests.conditional(
      'createClientKey',
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.clientKey(record.client_key),
          [INDEX.recent.partition]: CLIENT_KEYS,
          // The index sorts by a number: creation time in ms orders the listing newest first.
          [INDEX.recent.sort]: Date.parse(record.created),
          ...record,
        },
        ConditionExpression: `attribute_not_exists(${KEY.partition})`,
      }),
    );
  }

  async listClientKeys(): Promise<ClientKeyRecord[]> {
    const listed: Item[] = [];
    for await (const items of this.#requests.queryPages('query:recent', {
      TableName: this.table,
      IndexName: INDEX.recent.name,
      KeyConditionExpression: '#kind = :kind',
      ExpressionAttributeNames: { '#kind': INDEX.recent.partition },
      ExpressionAttributeValues: { ':kind': CLIENT_KEYS },
      ScanIndexForward: false,
    })) {
      listed.push(...items);
    }
    // The index carries only the listed attributes; the permission and revocation are read
    // from the items themselves.
    const records: ClientKeyRecord[] = [];
    for (let start = 0; start < listed.length; start += BATCH_GET_LIMIT) {
      const chunk = listed.slice(start, start + BATCH_GET_LIMIT);
      const output = await this.#requests.send<{ Responses?: Record<string, Item[]> }>(
        'getClientKeys',
        new BatchGetCommand({
          RequestItems: {
            [this.table]: {
              Keys: chunk.map((item) => ({
                [KEY.partition]: item[KEY.partition],
                [KEY.sort]: item[KEY.sort],
              })),
            },
          },
        }),
      );
      records.push(...(output.Responses?.[this.table] ?? []).map(fromItem));
    }
    return records.sort((a, b) => b.created.localeCompare(a.created));
  }

  revokeClientKey(clientKey: string, at: Date): Promise<boolean> {
    return this.#requests.conditional(
      'revokeClientKey',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.clientKey(clientKey),
        UpdateExpression: 'SET revoked = :at',
        ConditionExpression: `attribute_exists(${KEY.partition}) AND attribute_not_exists(revoked)`,
        ExpressionAttributeValues: { ':at': at.toISOString() },
      }),
    );
  }
}

function fromItem(item: Item): ClientKeyRecord {
  return {
    client_key: String(item.client_key),
    name: String(item.name ?? ''),
    permission: (item.permission === 'write' ? 'write' : 'read') satisfies ClientKeyPermission,
    secret_hash: String(item.secret_hash ?? ''),
    created: String(item.created),
    ...(typeof item.revoked === 'string' ? { revoked: item.revoked } : {}),
  };
}
