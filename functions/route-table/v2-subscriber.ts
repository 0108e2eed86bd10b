import { INDEX } from '../../shared/adapters/store/table-design.ts';
import { KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-subscriber` route (route-table.ts). */
export const route = {
  name: 'v2-subscriber',
  methods: ['GET', 'PUT', 'DELETE'],
  path: '/subscribers/{id}',
  version: 'v2',
  key: 'none',
  clientKey: { GET: 'read', PUT: 'write', DELETE: 'write' },
  cors: false,
  formPage: false,
  summary: 'v2: one subscriber by id or address: read, change (or create), delete',
  access: {
    // An id is looked up in the `recent` index; the record is read by address; a change is
    // a conditional put, a move to another address and a delete a transaction of puts and
    // deletes (the subscriber, its token items).
    table: [...KEY_CHECK, 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    queries: [INDEX.recent.name],
    sendsMail: false,
    settings: true,
  },
} as const satisfies RouteEntry;
