import type { RouteEntry } from './route-entry.ts';

/** The `subscribe` route (route-table.ts). */
export const route = {
  name: 'subscribe',
  methods: ['POST'],
  path: '/subscribe',
  key: 'optional',
  cors: true,
  formPage: true,
  traffic: 'sign-up',
  summary: 'Subscribe an address and start the subscription process',
  access: {
    // Keyless: count the rate limit (UpdateItem) and record the request (PutItem). Keyed: read
    // the subscriber, take an id (UpdateItem), write it with its outbox mails (PutItem) and
    // drop expired tokens (DeleteItem), in one transaction.
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    queries: [],
    sendsMail: false,
    settings: true,
  },
} as const satisfies RouteEntry;
