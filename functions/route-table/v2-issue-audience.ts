import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-audience` route (route-table.ts). */
export const route = issueRoute(
  'v2-issue-audience',
  'GET',
  '/issues/{id}/audience',
  "v2 (ours): how many an issue's send would reach now, and whether it fits SES's daily quota",
  // The issue; the highest subscriber id (GetItem each); the list index's shards of its lists
  // (Query of the table); with new_only, which members already have a record (BatchGetItem);
  // SES's quota.
  {
    table: [...KEY_CHECK, 'dynamodb:BatchGetItem', 'dynamodb:Query'],
    queries: [],
    sendsMail: false,
    settings: true,
    sendQuota: true,
  },
) satisfies RouteEntry;
