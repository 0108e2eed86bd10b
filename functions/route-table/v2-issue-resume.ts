import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-resume` route (route-table.ts). */
export const route = issueRoute(
  'v2-issue-resume',
  'POST',
  '/issues/{id}/resume',
  'v2 (ours): resume a paused issue',
  // The issue and its transition; the campaigns sending already (Query `recent`: a resumed
  // issue may wait its turn behind them, [campaign.overlap]).
  {
    table: KEY_CHECK,
    queries: ['recent'],
    sendsMail: false,
    settings: true,
    queues: ['plans'],
  },
) satisfies RouteEntry;
