import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue` route (route-table.ts). */
export const route = issueRoute(
  'v2-issue',
  'PUT',
  '/issues/{id}',
  'v2 (ours): edit an issue: subject, HTML, text, lists, private, url',
  // The key check; the issue read, then its update and its content's put in a transaction.
  { table: [...KEY_CHECK, 'dynamodb:PutItem'], queries: [], sendsMail: false, settings: true },
) satisfies RouteEntry;
