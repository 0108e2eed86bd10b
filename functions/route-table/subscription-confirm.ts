import type { RouteEntry } from './route-entry.ts';

/** The `subscription-confirm` route (route-table.ts). */
export const route = {
  name: 'subscription-confirm',
  methods: ['GET', 'POST'],
  path: '/subscription/confirm',
  key: 'none',
  cors: false,
  formPage: false,
  summary: 'Activation link: GET shows a confirm button, POST confirms',
  access: {
    // Read token and subscriber; write the confirmation with its outbox mails (PutItem),
    // dropping expired tokens (DeleteItem), in one transaction. The counts follow from the
    // stream (streams/table-changes).
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    queries: [],
    sendsMail: false,
    settings: true,
  },
} as const satisfies RouteEntry;
