import { KEY_CHECK, type RouteEntry, settingsRoute } from './route-entry.ts';

/** The `v2-account` route (route-table.ts). */
export const route = {
  ...settingsRoute(
    'v2-account',
    '/account',
    "v2 (ours): SES's quota and rate, and the bounce and complaint rates against SES's review levels",
  ),
  // An editor sees the quota before a send ([console.roles]).
  roles: { GET: 'editor' },
  // The key check; SES's quota and its sending statistics of the last two weeks.
  access: {
    table: KEY_CHECK,
    queries: [],
    sendsMail: false,
    settings: true,
    sendQuota: true,
    sendStatistics: true,
  },
} as const satisfies RouteEntry;
