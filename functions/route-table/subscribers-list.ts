import { INDEX } from '../../shared/adapters/store/table-design.ts';
import type { RouteEntry } from './route-entry.ts';

/** The `subscribers-list` route (route-table.ts). */
export const route = {
  name: 'subscribers-list',
  methods: ['POST'],
  path: '/subscribers',
  key: 'required',
  cors: false,
  formPage: false,
  summary: 'The 20 most recently created subscribers',
  access: { table: [], queries: [INDEX.recent.name], sendsMail: false, settings: false },
} as const satisfies RouteEntry;
