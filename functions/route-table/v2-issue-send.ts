import { issueRoute, KEY_CHECK, type RouteEntry } from './route-entry.ts';

/** The `v2-issue-send` route (route-table.ts). */
export const route = issueRoute(
  'v2-issue-send',
  'POST',
  '/issues/{id}/send',
  'v2 (ours): send an issue to its lists (new_only: to those it has not reached)',
  // The issue; SES's quota and, when the room is below the highest subscriber id, a count of
  // the recipients (Query of the list index; with new_only, which already have a record:
  // BatchGetItem); the campaigns sending already (Query `recent`: it shares the rate with
  // them or waits its turn, [campaign.overlap]).
  {
    table: [...KEY_CHECK, 'dynamodb:BatchGetItem', 'dynamodb:Query'],
    queries: ['recent'],
    sendsMail: false,
    settings: true,
    queues: ['plans'],
    sendQuota: true,
  },
) satisfies RouteEntry;
