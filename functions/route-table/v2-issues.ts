import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issues` route (route-table.ts). */
export const route = issueRoute(
  'v2-issues',
  'POST',
  '/issues',
  'v2 (ours): create a draft issue',
  // The key check; an id (UpdateItem), the issue and its content (a transaction of puts).
  { table: [...KEY_CHECK, 'dynamodb:PutItem'], queries: [], sendsMail: false, settings: true },
) satisfies RouteEntry;
