/**
 * The shape of a route table entry and the parts entries share. A route's function imports
 * its own entry (route-table/<name>.ts) and this file, never the whole table, so it carries no
 * other route's entry.
 */

import type { INDEX } from '../../shared/adapters/store/table-design.ts';
import type { PersonRole } from '../../shared/domain/person.ts';

/** HTTP methods the API answers; v1 uses GET and POST only, v2 also PUT and DELETE. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The API a route belongs to: `{stage}/newsletter/v1` (the interface) or `.../v2`. */
export type ApiVersion = 'v1' | 'v2';

/**
 * What a v2 method needs of the client key (decisions part 11): `read`, `write`, or
 * `optional` (anonymous calls allowed; a read key widens what they see), `optional-write`
 * (anonymous allowed; a key given must be a write key, since it makes the call a change).
 */
export type ClientKeyPolicy = 'read' | 'write' | 'optional' | 'optional-write';

/** Whether a route needs the API key: `required` (403 without), `optional` (widens access). */
export type KeyPolicy = 'required' | 'optional';

/** DynamoDB item actions a route's function may be granted on the table. */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:BatchWriteItem'
  /** On the table itself: a campaign's recipient records are one partition of it. */
  | 'dynamodb:Query';

/** The campaign engine's queues (functions/campaigns/campaign-functions.ts). */
export type CampaignQueueName = 'plans' | 'sends';

/** Cognito admin actions a function may call on the console's user pool (`people`). */
export type PeopleAction =
  | 'cognito-idp:AdminCreateUser'
  | 'cognito-idp:AdminAddUserToGroup'
  | 'cognito-idp:AdminDeleteUser'
  | 'cognito-idp:ListUsers'
  | 'cognito-idp:ListUsersInGroup';

/** Indexes of the table a function may query. */
export type IndexName = (typeof INDEX)[keyof typeof INDEX]['name'];

/**
 * What a route's function calls; drives its IAM grants and bundle contents. Exactly what the
 * code calls, no more: the local cloud refuses anything else (as AWS would), and the deployed
 * stack test fails on a grant no scenario uses.
 */
export interface RouteAccess {
  /** DynamoDB item actions on the table (a transaction needs the action of each item). */
  readonly table: readonly TableAction[];
  /** Indexes it queries (`dynamodb:Query` on the index, never on the table). */
  readonly queries: readonly IndexName[];
  /** Whether the function sends mail through SES. */
  readonly sendsMail: boolean;
  /**
   * Whether it reads the settings parameter. Keyed routes always do: the key and the settings
   * are fetched together (ServiceParameters.apiKey).
   */
  readonly settings: boolean;
  /** Campaign queues it sends messages to (`sqs:SendMessage`). */
  readonly queues?: readonly CampaignQueueName[];
  /** Whether it asks SES for the account's sending quota (`ses:GetSendQuota`). */
  readonly sendQuota?: boolean;
  /**
   * Whether it asks SES for the account's sending statistics of the last two weeks
   * (`ses:GetSendStatistics`): deliveries, bounces and complaints, for the bounce and complaint
   * rates SES reviews an account by.
   */
  readonly sendStatistics?: boolean;
  /** Whether it writes the settings parameter (`ssm:PutParameter`): v2's list writes. */
  readonly writesSettings?: boolean;
  /**
   * Whether it creates and deletes the one-time schedules of scheduled sends in the stack's
   * schedule group (`scheduler:CreateSchedule`, `scheduler:DeleteSchedule`) and passes the
   * scheduler role to EventBridge Scheduler (`iam:PassRole`), as `newsletters schedule` does.
   */
  readonly schedules?: boolean;
  /** Cognito admin actions it calls on the console's user pool, on the pool's ARN only. */
  readonly people?: readonly PeopleAction[];
  /** Whether it queues events on the events queue (`sqs:SendMessage`): the stream's reader. */
  readonly eventsQueue?: boolean;
}

/** One entry of the route table, without its schemas (routes.ts adds them). */
export interface RouteEntry {
  /** Stable kebab-case name: handler file `functions/<name>.ts`, Lambda id, log field. */
  readonly name: string;
  /** Methods served at `path`; a page answers GET (show) and POST (act) in one function. */
  readonly methods: readonly HttpMethod[];
  /** Path below `{api_root}`, starting with `/`, without trailing slash. */
  readonly path: string;
  /** The API it belongs to; absent: v1. */
  readonly version?: ApiVersion;
  /**
   * The v1 API key policy; `subscribe` and `newsletters` take an optional key that widens
   * access. Always `none` on v2, which takes named client keys instead.
   */
  readonly key: KeyPolicy | 'none';
  /** v2 only: what each method needs of the client key. */
  readonly clientKey?: Readonly<Partial<Record<HttpMethod, ClientKeyPolicy>>>;
  /**
   * v2 only: the least role a signed-in person (a Cognito ID token) needs for each method
   * ([console.roles]); a method not named needs `admin`, who may do all a write key may.
   */
  readonly roles?: Readonly<Partial<Record<HttpMethod, PersonRole>>>;
  /** v2 only: `false` for a route no client key may call, only a signed-in admin (people). */
  readonly clientKeys?: false;
  /**
   * Whether browser pages of other sites may read its answers (CORS): only public routes,
   * never one that takes a required key (a key in a browser is a leaked key).
   */
  readonly cors: boolean;
  /** Whether a plain HTML form posted by a browser lands on a page instead of JSON. */
  readonly formPage: boolean;
  /**
   * Which per-client limits guard it beside the API's general ones ([http.client-limits]):
   * `sign-up` (the public forms, the lowest limit and method throttle) or `unsubscribe` (mail
   * links and RFC 8058 one-click, limits of their own so a flood of sign-ups never refuses
   * them); absent: the general ones only.
   */
  readonly traffic?: 'sign-up' | 'unsubscribe';
  /** One line for the API description. */
  readonly summary: string;
  readonly access: RouteAccess;
  /**
   * v2 routes that speak CSV as well: `answer` describes the `text/csv` answer of a GET asked
   * for it (`Accept: text/csv`, in parts linked by `Link: rel="next"`); `body` the `text/csv`
   * body a POST takes instead of JSON (its parameters then go in the query string).
   */
  readonly csv?: {
    readonly answer?: string;
    readonly body?: string;
    /**
     * The least role for the CSV answer where it reveals more than the JSON one: a report's
     * rows name every recipient, which only an admin may read ([report.editor]).
     */
    readonly answerRole?: PersonRole;
  };
  /** A JSON answer that comes in pages linked by `Link: <…>; rel="next"`: what the link holds. */
  readonly nextLink?: string;
}

/**
 * What every keyed v2 function reads to check a key: the key's item (on a cache miss) and,
 * for a failed check, the client's rate-limit counter; the settings hold that limit.
 */
export const KEY_CHECK: readonly TableAction[] = ['dynamodb:GetItem', 'dynamodb:UpdateItem'];

/** A list route that also writes lists: the settings parameter read and written by SSM. */
export const LIST_WRITE_ACCESS = {
  table: KEY_CHECK,
  queries: [],
  sendsMail: false,
  settings: true,
  writesSettings: true,
} as const satisfies RouteAccess;

/** A v2 route over the settings only: lists, extra fields, the key test. */
export function settingsRoute<const Name extends string>(
  name: Name,
  path: string,
  summary: string,
) {
  return {
    name,
    methods: ['GET'],
    path,
    version: 'v2',
    key: 'none',
    clientKey: { GET: 'read' },
    cors: false,
    formPage: false,
    summary,
    access: { table: KEY_CHECK, queries: [], sendsMail: false, settings: true },
  } as const satisfies RouteEntry;
}

/**
 * A v2 route of our extension that works on one issue (`/issues/{id}/...`), for a write key,
 * or a read key for the report ([v2.issues]).
 */
export function issueRoute<const Name extends string>(
  name: Name,
  method: 'POST' | 'PUT' | 'GET',
  path: string,
  summary: string,
  access: RouteAccess,
) {
  return {
    name,
    methods: [method],
    path,
    version: 'v2',
    key: 'none',
    clientKey: { [method]: method === 'GET' ? 'read' : 'write' },
    // An editor writes, sends and reads issues ([console.roles]).
    roles: { [method]: 'editor' },
    cors: false,
    formPage: false,
    summary,
    access,
  } as const satisfies RouteEntry;
}

/**
 * The least role a signed-in person needs for a method of a v2 route ([console.roles]): what
 * the route table says, else `admin`; for a GET answered as CSV, its `csv.answerRole` when it
 * names one ([report.editor]). The one place roles are decided.
 */
export function roleNeeded(
  route: Pick<RouteEntry, 'roles' | 'csv'>,
  method: HttpMethod,
  csvAnswer = false,
): PersonRole {
  if (csvAnswer && method === 'GET' && route.csv?.answerRole) return route.csv.answerRole;
  return route.roles?.[method] ?? 'admin';
}
