import type { RouteEntry } from './route-entry.ts';

/** The `v2-people` route (route-table.ts). */
export const route = {
  name: 'v2-people',
  methods: ['GET', 'POST'],
  path: '/people',
  version: 'v2',
  key: 'none',
  clientKey: { GET: 'write', POST: 'write' },
  // A key may not add an admin: people are managed by signed-in admins (and the CLI) only.
  clientKeys: false,
  cors: false,
  formPage: false,
  summary:
    "v2 (ours): the console's people (GET); add one with a role (POST, temporary password once)",
  access: {
    // No key is read; a failed token check counts in the rate limit (UpdateItem, settings).
    table: ['dynamodb:UpdateItem'],
    queries: [],
    sendsMail: false,
    settings: true,
    people: [
      'cognito-idp:ListUsers',
      'cognito-idp:ListUsersInGroup',
      'cognito-idp:AdminCreateUser',
      'cognito-idp:AdminAddUserToGroup',
    ],
  },
} as const satisfies RouteEntry;
