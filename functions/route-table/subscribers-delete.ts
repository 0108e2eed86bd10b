import type { RouteEntry } from './route-entry.ts';

/** The `subscribers-delete` route (route-table.ts). */
export const route = {
  name: 'subscribers-delete',
  methods: ['POST'],
  path: '/subscribers/delete',
  key: 'required',
  cors: false,
  formPage: false,
  summary: 'Delete a subscriber and everything stored for it',
  access: {
    // Read, then delete the subscriber and its token items in one transaction; then erase
    // their opens and clicks (UpdateItem the ENGAGED item and each recipient record).
    table: ['dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
    queries: [],
    sendsMail: false,
    settings: false,
  },
} as const satisfies RouteEntry;
