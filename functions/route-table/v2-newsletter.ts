import { KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-newsletter` route (route-table.ts). */
export const route = {
  name: 'v2-newsletter',
  methods: ['GET'],
  path: '/newsletters/{id}',
  version: 'v2',
  key: 'none',
  clientKey: { GET: 'optional' },
  roles: { GET: 'editor' },
  cors: true,
  formPage: false,
  summary: 'v2: one newsletter; a private or unsent one needs a key',
  // The key check; the issue and its content (GetItem each).
  access: { table: KEY_CHECK, queries: [], sendsMail: false, settings: true },
} as const satisfies RouteEntry;
