/**
 * The one route table, without the request and response schemas: what a route's function
 * answers (methods, key and role policies, CORS, forms), what it may call (its grants) and
 * what it is (name, path, summary). Each entry lives in route-table/<name>.ts, and a route's
 * handler module imports only its own, so no function carries the other routes' entries
 * (about 11 KB each); the schemas, which only the API description and the tests read, are
 * joined to the table in routes.ts. A route is added as its own file, to this table and to
 * routes.ts's schemas: the type check fails until the last two have it. The v2 routes (the
 * original's API v2, decisions part 11) follow the v1 ones.
 */

import { route as newsletterView } from './route-table/newsletter-view.ts';
import { route as newsletters } from './route-table/newsletters.ts';
import { route as openapi } from './route-table/openapi.ts';
import type { RouteEntry } from './route-table/route-entry.ts';
import { route as subscribe } from './route-table/subscribe.ts';
import { route as subscribersAdd } from './route-table/subscribers-add.ts';
import { route as subscribersDelete } from './route-table/subscribers-delete.ts';
import { route as subscribersList } from './route-table/subscribers-list.ts';
import { route as subscriptionConfirm } from './route-table/subscription-confirm.ts';
import { route as subscriptionUnsubscribe } from './route-table/subscription-unsubscribe.ts';
import { route as unsubscribe } from './route-table/unsubscribe.ts';
import { route as v2Account } from './route-table/v2-account.ts';
import { route as v2Extrafield } from './route-table/v2-extrafield.ts';
import { route as v2Extrafields } from './route-table/v2-extrafields.ts';
import { route as v2Issue } from './route-table/v2-issue.ts';
import { route as v2IssueAudience } from './route-table/v2-issue-audience.ts';
import { route as v2IssueCancel } from './route-table/v2-issue-cancel.ts';
import { route as v2IssueCopy } from './route-table/v2-issue-copy.ts';
import { route as v2IssuePause } from './route-table/v2-issue-pause.ts';
import { route as v2IssueReport } from './route-table/v2-issue-report.ts';
import { route as v2IssueResume } from './route-table/v2-issue-resume.ts';
import { route as v2IssueSchedule } from './route-table/v2-issue-schedule.ts';
import { route as v2IssueSend } from './route-table/v2-issue-send.ts';
import { route as v2IssueTest } from './route-table/v2-issue-test.ts';
import { route as v2Issues } from './route-table/v2-issues.ts';
import { route as v2List } from './route-table/v2-list.ts';
import { route as v2Lists } from './route-table/v2-lists.ts';
import { route as v2Newsletter } from './route-table/v2-newsletter.ts';
import { route as v2Newsletters } from './route-table/v2-newsletters.ts';
import { route as v2People } from './route-table/v2-people.ts';
import { route as v2Person } from './route-table/v2-person.ts';
import { route as v2Settings } from './route-table/v2-settings.ts';
import { route as v2Subscriber } from './route-table/v2-subscriber.ts';
import { route as v2SubscriberIssues } from './route-table/v2-subscriber-issues.ts';
import { route as v2Subscribers } from './route-table/v2-subscribers.ts';
import { route as v2SubscribersImport } from './route-table/v2-subscribers-import.ts';
import { route as v2Subscriptions } from './route-table/v2-subscriptions.ts';
import { route as v2Test } from './route-table/v2-test.ts';

export {
  type ApiVersion,
  type CampaignQueueName,
  type ClientKeyPolicy,
  type HttpMethod,
  type IndexName,
  type KeyPolicy,
  type PeopleAction,
  type RouteAccess,
  type RouteEntry,
  roleNeeded,
  type TableAction,
} from './route-table/route-entry.ts';

/** Every route of `{api_root}`; the first six are the interface's endpoints, then the pages. */
export const routeTable = [
  subscribe,
  unsubscribe,
  subscribersAdd,
  subscribersDelete,
  subscribersList,
  newsletters,
  subscriptionConfirm,
  subscriptionUnsubscribe,
  newsletterView,
  openapi,
  v2Subscriptions,
  v2Subscribers,
  v2Subscriber,
  v2SubscribersImport,
  v2SubscriberIssues,
  v2Lists,
  v2List,
  v2Extrafields,
  v2Extrafield,
  v2Newsletters,
  v2Newsletter,
  v2Account,
  v2Settings,
  v2Test,
  v2Issues,
  v2Issue,
  v2IssueCopy,
  v2IssueTest,
  v2IssueSend,
  v2IssueAudience,
  v2IssuePause,
  v2IssueResume,
  v2IssueSchedule,
  v2IssueCancel,
  v2IssueReport,
  v2People,
  v2Person,
] as const satisfies readonly RouteEntry[];

/** The name of a route: a typo in a handler module fails the type check. */
export type RouteName = (typeof routeTable)[number]['name'];
