import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-resume` route (route-table.ts). */
export const route = issueRoute(
  'v2-issue-resume',
  'POST',
  '/issues/{id}/resume',
  'v2 (ours): resume a paused issue',
  {
    table: KEY_CHECK,
    queries: [],
    sendsMail: false,
    settings: true,
    queues: ['plans'],
  },
) satisfies RouteEntry;
