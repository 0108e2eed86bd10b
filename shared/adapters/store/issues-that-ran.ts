import type { NewsletterIssueStatus } from '../../domain/newsletter-issue.ts';
import type { DynamoRequests } from './dynamo-requests.ts';
import { INDEX } from './table-design.ts';

/** Issues that went out at least in part: only they can hold recipient records. */
export const STATUSES_THAT_RAN: readonly NewsletterIssueStatus[] = [
  'sending',
  'paused',
  'sent',
  'cancelled',
];

/**
 * The next `limit` issues that went out, newest first, below the issue id `before` (all when
 * undefined): one Query of the `recent` index's newsletters, read page by page until `limit`
 * pass the filter. Whether there are more: `issues.length === limit`.
 */
export async function issuesThatRan(
  requests: DynamoRequests,
  table: string,
  operation: string,
  before: number | undefined,
  limit: number,
): Promise<{ id: number; subject: string }[]> {
  const issues: { id: number; subject: string }[] = [];
  for await (const items of requests.queryPages(operation, {
    TableName: table,
    IndexName: INDEX.recent.name,
    KeyConditionExpression:
      before === undefined ? '#kind = :kind' : '#kind = :kind AND #id < :before',
    FilterExpression: `#status IN (${STATUSES_THAT_RAN.map((_, index) => `:s${index}`).join(', ')})`,
    ExpressionAttributeNames: {
      '#kind': INDEX.recent.partition,
      '#id': INDEX.recent.sort,
      '#status': 'status',
      '#subject': 'subject',
    },
    ExpressionAttributeValues: {
      ':kind': 'newsletter',
      ...(before === undefined ? {} : { ':before': before }),
      ...Object.fromEntries(STATUSES_THAT_RAN.map((status, index) => [`:s${index}`, status])),
    },
    ProjectionExpression: '#id, #subject',
    ScanIndexForward: false,
    Limit: limit,
  })) {
    for (const item of items) issues.push({ id: Number(item.id), subject: String(item.subject) });
    if (issues.length >= limit) break;
  }
  return issues.slice(0, limit);
}
