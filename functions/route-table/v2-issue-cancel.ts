import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-cancel` route (route-table.ts). */
export const route = issueRoute(
  'v2-issue-cancel',
  'POST',
  '/issues/{id}/cancel',
  'v2 (ours): cancel a scheduled, sending or paused issue',
  { table: KEY_CHECK, queries: [], sendsMail: false, settings: true },
) satisfies RouteEntry;
