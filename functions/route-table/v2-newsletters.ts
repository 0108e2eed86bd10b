import { INDEX } from '../../shared/adapters/store/table-design.ts';
import { KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-newsletters` route (route-table.ts). */
export const route = {
  name: 'v2-newsletters',
  methods: ['GET'],
  path: '/newsletters',
  version: 'v2',
  key: 'none',
  clientKey: { GET: 'optional' },
  roles: { GET: 'editor' },
  cors: true,
  formPage: false,
  summary: 'v2: sent public newsletters, newest first; with a key every issue',
  access: {
    // The key check; the issues from an index; the content of each on the page (GetItem).
    table: KEY_CHECK,
    queries: [INDEX.recent.name, INDEX.publicRecent.name],
    sendsMail: false,
    settings: true,
  },
} as const satisfies RouteEntry;
