import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-schedule` route (route-table.ts). */
export const route = {
  ...issueRoute(
    'v2-issue-schedule',
    'POST',
    '/issues/{id}/schedule',
    'v2 (ours): schedule a draft to start sending at a time (POST), or take it back to draft (DELETE)',
    // The issue and its content (GetItem each), its transition (UpdateItem); the one-time
    // schedule created or deleted in the stack's group, with the scheduler role passed.
    { table: KEY_CHECK, queries: [], sendsMail: false, settings: true, schedules: true },
  ),
  methods: ['POST', 'DELETE'],
  clientKey: { POST: 'write', DELETE: 'write' },
  roles: { POST: 'editor', DELETE: 'editor' },
} as const satisfies RouteEntry;
