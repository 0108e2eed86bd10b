import { INDEX } from '../../shared/adapters/store/table-design.ts';
import type { RouteEntry } from './route-entry.ts';

/** The `newsletters` route (route-table.ts). */
export const route = {
  name: 'newsletters',
  methods: ['GET'],
  path: '/newsletters',
  key: 'optional',
  cors: true,
  formPage: false,
  summary: 'The 10 most recently created newsletters',
  access: {
    table: [],
    // All issues for keyed calls, the sparse index of sent public ones for keyless calls.
    queries: [INDEX.recent.name, INDEX.publicRecent.name],
    sendsMail: false,
    settings: false,
  },
} as const satisfies RouteEntry;
