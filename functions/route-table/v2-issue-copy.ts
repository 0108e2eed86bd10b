import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-copy` route (route-table.ts). */
export const route = issueRoute(
  'v2-issue-copy',
  'POST',
  '/issues/{id}/copy',
  'v2 (ours): copy an issue into a new draft',
  { table: [...KEY_CHECK, 'dynamodb:PutItem'], queries: [], sendsMail: false, settings: true },
) satisfies RouteEntry;
