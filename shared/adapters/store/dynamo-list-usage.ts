import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { NewsletterIssueStatus } from '../../domain/newsletter-issue.ts';
import { DynamoRequests } from './dynamo-requests.ts';
import type { ListUsage } from './list-usage-port.ts';
import { INDEX } from './table-design.ts';

/** The statuses of an issue that may still send to its lists. */
const UNSENT: readonly NewsletterIssueStatus[] = ['draft', 'scheduled', 'sending', 'paused'];

/**
 * The issues naming a list, from the `recent` index (docs/storage.md): one Query of the issues'
 * partition, newest first, filtered on the index's copy of their status and lists, so only ids
 * come back. It reads every issue's index entry (some 200 bytes each: 1 RRU per 20 issues,
 * eventually consistent), never a recipient or a subscriber.
 */
export class DynamoListUsage implements ListUsage {
  readonly #requests: DynamoRequests;

  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.#requests = new DynamoRequests(client);
  }

  async unsentIssuesNaming(listId: number): Promise<number[]> {
    const ids: number[] = [];
    for await (const items of this.#requests.queryPages('query:recent', {
      TableName: this.table,
      IndexName: INDEX.recent.name,
      KeyConditionExpression: '#kind = :kind',
      FilterExpression: `#status IN (${UNSENT.map((_, index) => `:s${index}`).join(', ')}) AND contains(#lists, :list)`,
      ExpressionAttributeNames: {
        '#kind': INDEX.recent.partition,
        '#status': 'status',
        '#lists': 'lists',
        '#id': INDEX.recent.sort,
      },
      ExpressionAttributeValues: {
        ':kind': 'newsletter',
        ':list': listId,
        ...Object.fromEntries(UNSENT.map((status, index) => [`:s${index}`, status])),
      },
      ProjectionExpression: '#id',
      ScanIndexForward: false,
    })) {
      ids.push(...items.map((item) => Number(item.id)));
    }
    return ids;
  }
}
