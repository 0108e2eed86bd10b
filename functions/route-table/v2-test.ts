import { type RouteEntry, settingsRoute } from './route-entry.ts';

/** The `v2-test` route (route-table.ts). */
export const route = settingsRoute(
  'v2-test',
  '/test',
  'v2: checks a key; answers {}',
) satisfies RouteEntry;
