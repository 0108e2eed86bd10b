import type { RouteEntry } from './route-entry.ts';

/** The `v2-subscriptions` route (route-table.ts). */
export const route = {
  name: 'v2-subscriptions',
  methods: ['POST'],
  path: '/subscriptions',
  version: 'v2',
  key: 'none',
  // Public as v1's subscribe; a key makes the call trusted (write: it changes subscribers).
  clientKey: { POST: 'optional-write' },
  cors: true,
  formPage: false,
  traffic: 'sign-up',
  summary: 'v2: subscribe an address (the keyless subscribe; a write key makes it trusted)',
  access: {
    // As v1's subscribe (rate limit, request record; keyed: read, id, write with tokens),
    // the key check's GetItem and UpdateItem among them.
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    queries: [],
    sendsMail: false,
    settings: true,
  },
} as const satisfies RouteEntry;
