import { KEY_CHECK, LIST_WRITE_ACCESS, type RouteEntry, settingsRoute } from './route-entry.ts';

/** The `v2-lists` route (route-table.ts). */
export const route = {
  ...settingsRoute(
    'v2-lists',
    '/lists',
    'v2: every list, private ones included (GET); create one (POST, ours)',
  ),
  methods: ['GET', 'POST'],
  clientKey: { GET: 'read', POST: 'write' },
  // An editor reads the lists an issue goes to; only an admin changes them.
  roles: { GET: 'editor' },
  // The settings document read and written directly (not through the cached extension);
  // GET also reads the subscriber counts (the counter's mark, then Query) for member counts.
  access: { ...LIST_WRITE_ACCESS, table: [...KEY_CHECK, 'dynamodb:Query'] },
} as const satisfies RouteEntry;
