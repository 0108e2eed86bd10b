import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { NewsletterIssueRecord } from '../newsletters/newsletter-issue.ts';
import { INDEX } from '../store/table-design.ts';
import type { Subscriber } from '../subscribers/subscriber.ts';

/**
 * Reads every subscriber or newsletter issue through the `recent` index, one page at a time,
 * for operator tooling (export, full listings). The index projects exactly the attributes a
 * listing shows (table-design `LISTED_ATTRIBUTES` plus the keys), so one Query page costs a
 * fraction of the base items and nothing private (tokens, versions) is ever read.
 *
 * The index is eventually consistent: an item written a moment ago may be missing.
 */

/** Which end of the id order a listing starts at. */
export type ListingOrder = 'oldest-first' | 'newest-first';

/** Options of a full listing. */
export interface ListingOptions {
  readonly order?: ListingOrder;
  /** Items per Query page; DynamoDB's 1 MB page limit applies either way. */
  readonly pageSize?: number;
}

type Item = Record<string, unknown>;

/** Every item of one kind in the `recent` index, page by page; only one page is held at once. */
export async function* listedItems(
  client: DynamoDBDocumentClient,
  table: string,
  kind: 'subscriber' | 'newsletter',
  options: ListingOptions = {},
): AsyncGenerator<Item> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: INDEX.recent.name,
        KeyConditionExpression: '#kind = :kind',
        ExpressionAttributeNames: { '#kind': INDEX.recent.partition },
        ExpressionAttributeValues: { ':kind': kind },
        ScanIndexForward: options.order !== 'newest-first',
        ...(options.pageSize ? { Limit: options.pageSize } : {}),
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) yield item;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Every subscriber, as the operations show them (no tokens, no internals). */
export async function* listedSubscribers(
  client: DynamoDBDocumentClient,
  table: string,
  options: ListingOptions = {},
): AsyncGenerator<Subscriber> {
  for await (const item of listedItems(client, table, 'subscriber', options)) {
    yield {
      id: Number(item.id),
      email: String(item.email),
      name: String(item.name ?? ''),
      surname: String(item.surname ?? ''),
      gender: (item.gender ?? '') as Subscriber['gender'],
      lists: ((item.lists as unknown[] | undefined) ?? []).map(Number),
      profile: (item.profile ?? {}) as Record<string, string>,
      status: item.status as Subscriber['status'],
      created: String(item.created),
      updated: String(item.updated),
    };
  }
}

/** Every newsletter issue, drafts and private ones included. */
export async function* listedNewsletterIssues(
  client: DynamoDBDocumentClient,
  table: string,
  options: ListingOptions = {},
): AsyncGenerator<NewsletterIssueRecord> {
  for await (const item of listedItems(client, table, 'newsletter', options)) {
    yield {
      id: Number(item.id),
      subject: String(item.subject),
      status: item.status as NewsletterIssueRecord['status'],
      created: String(item.created),
      sent_at: typeof item.sent_at === 'string' ? item.sent_at : null,
      ...(typeof item.url === 'string' ? { url: item.url } : {}),
      private: item.private === true,
    };
  }
}
