import { INDEX } from '../../shared/adapters/store/table-design.ts';
import { KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-subscriber-issues` route (route-table.ts). */
export const route = {
  name: 'v2-subscriber-issues',
  methods: ['GET'],
  path: '/subscribers/{id}/issues',
  version: 'v2',
  key: 'none',
  clientKey: { GET: 'read' },
  cors: false,
  formPage: false,
  summary: 'v2 (ours): the issues a subscriber got and how each ended, newest first, in pages',
  access: {
    // The subscriber as /subscribers/{id} finds it (an id through `recent`, then GetItem);
    // the next issues that went out (Query `recent`); its record in each (BatchGetItem).
    table: [...KEY_CHECK, 'dynamodb:BatchGetItem'],
    queries: [INDEX.recent.name],
    sendsMail: false,
    settings: true,
  },
  nextLink:
    'While older issues remain: <{path}?before={issue id}>; rel="next", the next page (without credentials: send them again).',
} as const satisfies RouteEntry;
