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
    // dropping expired tokens (DeleteItem) and updating the subscriber counts (UpdateItem),
    // in one transaction.
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
    queries: [],
    sendsMail: false,
    settings: true,
  },
} as const satisfies RouteEntry;
