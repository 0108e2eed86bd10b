import { KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-subscribers-import` route (route-table.ts). */
export const route = {
  name: 'v2-subscribers-import',
  methods: ['POST'],
  path: '/subscribers/import',
  version: 'v2',
  key: 'none',
  clientKey: { POST: 'write' },
  cors: false,
  formPage: false,
  summary:
    'v2 (ours): import a part of a subscriber CSV (text/csv, a header and at most 1,000 rows), as the CLI imports a file',
  access: {
    // Ids in blocks (UpdateItem of the counter); each row a conditional create of the
    // subscriber with its list index entries (a transaction of puts).
    table: [...KEY_CHECK, 'dynamodb:PutItem'],
    queries: [],
    sendsMail: false,
    settings: true,
  },
  csv: {
    body:
      'Content-Type: text/csv. A part of a subscriber file in the format of `npx newsletter ' +
      'subscribers export`: a header row (email required) and at most 1,000 rows, 1 MiB.',
  },
} as const satisfies RouteEntry;
