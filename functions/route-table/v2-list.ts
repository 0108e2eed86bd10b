import { INDEX } from '../../shared/adapters/store/table-design.ts';
import { LIST_WRITE_ACCESS, type RouteEntry, settingsRoute } from './route-entry.ts';

/** The `v2-list` route (route-table.ts). */
export const route = {
  ...settingsRoute(
    'v2-list',
    '/lists/{id}',
    'v2: one list (GET); ours: rename it or change its flags (PUT), delete it (DELETE)',
  ),
  methods: ['GET', 'PUT', 'DELETE'],
  clientKey: { GET: 'read', PUT: 'write', DELETE: 'write' },
  roles: { GET: 'editor' },
  // DELETE first looks for issues still to be sent that name the list (Query `recent`).
  access: { ...LIST_WRITE_ACCESS, queries: [INDEX.recent.name] },
} as const satisfies RouteEntry;
