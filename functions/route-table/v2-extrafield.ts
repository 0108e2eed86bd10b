import { type RouteEntry, settingsRoute } from './route-entry.ts';

/** The `v2-extrafield` route (route-table.ts). */
export const route = {
  ...settingsRoute('v2-extrafield', '/extrafields/{id}', 'v2: one extra field'),
  roles: { GET: 'editor' },
} as const satisfies RouteEntry;
