import type { RouteEntry } from './route-entry.ts';

/** The `subscribers-add` route (route-table.ts). */
export const route = {
  name: 'subscribers-add',
  methods: ['POST'],
  path: '/subscribers/add',
  key: 'required',
  cors: false,
  formPage: false,
  summary: 'Add a subscriber directly, without the subscription process',
  access: {
    // Look before taking an id, take one (UpdateItem on the counter), conditional put.
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    queries: [],
    sendsMail: false,
    settings: true,
  },
} as const satisfies RouteEntry;
