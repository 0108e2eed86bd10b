import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-pause` route (route-table.ts). */
export const route = issueRoute(
  'v2-issue-pause',
  'POST',
  '/issues/{id}/pause',
  'v2 (ours): pause a sending issue',
  {
    table: KEY_CHECK,
    queries: [],
    sendsMail: false,
    settings: true,
  },
) satisfies RouteEntry;
