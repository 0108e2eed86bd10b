import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-test` route (route-table.ts). */
export const route = issueRoute(
  'v2-issue-test',
  'POST',
  '/issues/{id}/test',
  'v2 (ours): send an issue as a test to at most 5 addresses',
  // The issue read; the test queued for the workers on the planner's queue.
  { table: KEY_CHECK, queries: [], sendsMail: false, settings: true, queues: ['plans'] },
) satisfies RouteEntry;
