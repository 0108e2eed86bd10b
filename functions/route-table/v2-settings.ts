import { LIST_WRITE_ACCESS, type RouteEntry, settingsRoute } from './route-entry.ts';

/** The `v2-settings` route (route-table.ts). */
export const route = {
  ...settingsRoute(
    'v2-settings',
    '/settings',
    'v2 (ours): the settings document as written (GET); replace it, validated as the CLI does (PUT)',
  ),
  methods: ['GET', 'PUT'],
  clientKey: { GET: 'read', PUT: 'write' },
  // The settings document read and written directly (not through the cached extension).
  access: LIST_WRITE_ACCESS,
} as const satisfies RouteEntry;
