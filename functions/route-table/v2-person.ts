import type { RouteEntry } from './route-entry.ts';

/** The `v2-person` route (route-table.ts). */
export const route = {
  name: 'v2-person',
  methods: ['DELETE'],
  path: '/people/{email}',
  version: 'v2',
  key: 'none',
  clientKey: { DELETE: 'write' },
  clientKeys: false,
  cors: false,
  formPage: false,
  summary: 'v2 (ours): remove a person from the console',
  access: {
    table: ['dynamodb:UpdateItem'],
    queries: [],
    sendsMail: false,
    settings: true,
    people: ['cognito-idp:AdminDeleteUser'],
  },
} as const satisfies RouteEntry;
