import { type RouteEntry, settingsRoute } from './route-entry.ts';

/** The `v2-extrafields` route (route-table.ts). */
export const route = {
  ...settingsRoute('v2-extrafields', '/extrafields', 'v2: every extra (profile) field'),
  // An editor's issue editor offers the profile fields' tags ({profile_<id>}).
  roles: { GET: 'editor' },
} as const satisfies RouteEntry;
