import type { RouteEntry } from './route-entry.ts';

/** The `unsubscribe` route (route-table.ts). */
export const route = {
  name: 'unsubscribe',
  methods: ['POST'],
  path: '/unsubscribe',
  key: 'required',
  cors: false,
  formPage: false,
  summary: 'Unsubscribe an address',
  access: {
    // Read, then a whole-item put conditional on the version read; a pending activation
    // link's token item is deleted in the same transaction. The counts follow from the
    // stream (streams/table-changes).
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    queries: [],
    sendsMail: false,
    settings: false,
  },
} as const satisfies RouteEntry;
