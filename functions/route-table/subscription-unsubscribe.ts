import type { RouteEntry } from './route-entry.ts';

/** The `subscription-unsubscribe` route (route-table.ts). */
export const route = {
  name: 'subscription-unsubscribe',
  methods: ['GET', 'POST'],
  path: '/subscription/unsubscribe',
  key: 'none',
  cors: false,
  formPage: false,
  traffic: 'unsubscribe',
  summary: 'Unsubscribe link: GET shows a button, POST (or RFC 8058 one-click) unsubscribes',
  access: {
    // Read token and subscriber, then a conditional put of the unsubscribed record, with
    // the activation link's token item deleted in the same transaction. A campaign mail's
    // link: its recipient record (GetItem), else its chunk's links (GetItem of the chunk and
    // of each claim's links item), the subscriber's address by id (Query `recent`), and the
    // mark on the record that the person left through it (UpdateItem).
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
    queries: ['recent'],
    sendsMail: false,
    settings: false,
  },
} as const satisfies RouteEntry;
