import { INDEX } from '../../shared/adapters/store/table-design.ts';
import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-report` route (route-table.ts). */
export const route = {
  ...issueRoute(
    'v2-issue-report',
    'GET',
    '/issues/{id}/report',
    "v2 (ours): an issue's report, JSON or (Accept: text/csv) CSV in parts of at most 5,000 rows",
    // The issue; its recipient records (a Query of its partition); their addresses by id.
    {
      table: [...KEY_CHECK, 'dynamodb:Query'],
      queries: [INDEX.recent.name],
      sendsMail: false,
      settings: true,
    },
  ),
  csv: {
    answer:
      'Accept: text/csv. One row per recipient (email,subscriber_id,outcome,at,message_id), at ' +
      'most 5,000 per answer; the first part starts with the header row (header=present), the ' +
      'next ones do not (header=absent), so the parts concatenate into one file. ' +
      'A signed-in editor gets the JSON (counts and rates) only: the rows are for admins.',
    answerRole: 'admin',
  },
} as const satisfies RouteEntry;
