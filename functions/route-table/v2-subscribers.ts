import { INDEX } from '../../shared/adapters/store/table-design.ts';
import { KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-subscribers` route (route-table.ts). */
export const route = {
  name: 'v2-subscribers',
  methods: ['GET', 'POST'],
  path: '/subscribers',
  version: 'v2',
  key: 'none',
  clientKey: { GET: 'read', POST: 'write' },
  cors: false,
  formPage: false,
  summary:
    'v2: a page of subscribers (GET; ours: Accept: text/csv exports them in parts), or create or update one by address (POST)',
  access: {
    // The key check; GET: the subscriber counts (Query), the page's addresses from the
    // `recent` index (or a search's from `by_email`), then one BatchGetItem of their
    // records; POST: read the address, take an id (UpdateItem), put with the counts.
    table: [...KEY_CHECK, 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:Query'],
    queries: [INDEX.recent.name, INDEX.byEmail.name],
    sendsMail: false,
    settings: true,
  },
  csv: {
    answer:
      'Accept: text/csv (ours). Every subscriber, oldest first, as `npx newsletter subscribers ' +
      'export` writes them (id,email,name,surname,gender,lists,status,created,updated,' +
      'profile_<id>...), at most 5,000 per answer; the first part starts with the header row ' +
      '(header=present), the next ones do not (header=absent). The filters do not apply.',
  },
} as const satisfies RouteEntry;
