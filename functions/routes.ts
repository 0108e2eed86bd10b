/**
 * The one route table. The local server routes from it, the CDK stack builds one Lambda and one
 * API Gateway method per entry from it, and the OpenAPI description is generated from it, so a
 * route is added here and nowhere else.
 */

import * as v from 'valibot';
import { INDEX } from '../shared/adapters/store/table-design.ts';
import { NewsletterIssueSchema } from '../shared/domain/newsletter-issue.ts';
import {
  AddSubscriberRequestSchema,
  EmailRequestSchema,
  NoParametersSchema,
  SubscribeRequestSchema,
  TokenRequestSchema,
  ViewRequestSchema,
} from '../shared/domain/parameters/request-schemas.ts';
import {
  AddedPersonSchema,
  PersonEntrySchema,
  type PersonRole,
  PersonWriteSchema,
} from '../shared/domain/person.ts';
import { SubscriberSchema } from '../shared/domain/subscriber.ts';
import {
  V2AccountSchema,
  V2AudienceRequestSchema,
  V2AudienceSchema,
  V2DeletedSchema,
  V2EmptySchema,
  V2ExtraFieldSchema,
  V2IdRequestSchema,
  V2ImportRequestSchema,
  V2ImportSchema,
  V2IssueSchema,
  V2IssueWriteSchema,
  V2ListSchema,
  V2ListWriteSchema,
  V2NewsletterSchema,
  V2PageRequestSchema,
  V2ReportRequestSchema,
  V2ReportSchema,
  V2ScheduleRequestSchema,
  V2SendRequestSchema,
  V2SettingsSchema,
  V2SettingsWriteSchema,
  V2SubscriberIssuesRequestSchema,
  V2SubscriberIssuesSchema,
  V2SubscriberQuerySchema,
  V2SubscriberWriteSchema,
  V2TestSendSchema,
} from '../shared/domain/v2/v2-shapes.ts';
import { V2SubscriberDetailSchema, V2SubscriberSchema } from '../shared/domain/v2/v2-subscriber.ts';
import { DeleteResultSchema } from '../shared/operations/delete-subscriber.ts';
import { PublicSubscribeResultSchema } from '../shared/operations/subscribe.ts';

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

/** One entry of the route table. */
export interface Route {
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
  /** One line for the API description. */
  readonly summary: string;
  readonly access: RouteAccess;
  /** The parameters (body, or query for GET), for the API description. */
  readonly request: v.GenericSchema;
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
  /**
   * What a 200 carries: JSON of this schema, a link page (`html`: its errors are pages too), a
   * public HTML document whose errors are JSON as every other route's (`html-document`), or the
   * API description itself.
   */
  readonly response: v.GenericSchema | 'html' | 'html-document' | 'openapi';
}

/**
 * What every keyed v2 function reads to check a key: the key's item (on a cache miss) and,
 * for a failed check, the client's rate-limit counter; the settings hold that limit.
 */
const KEY_CHECK: readonly TableAction[] = ['dynamodb:GetItem', 'dynamodb:UpdateItem'];

/** A list route that also writes lists: the settings parameter read and written by SSM. */
const LIST_WRITE_ACCESS = {
  table: KEY_CHECK,
  queries: [],
  sendsMail: false,
  settings: true,
  writesSettings: true,
} as const satisfies RouteAccess;

/** A v2 route over the settings only: lists, extra fields, the key test. */
function settingsRoute(name: string, path: string, summary: string, response: v.GenericSchema) {
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
    request: path.includes('{id}') ? V2IdRequestSchema : NoParametersSchema,
    response,
  } as const satisfies Route;
}

/**
 * A v2 route of our extension that works on one issue (`/issues/{id}/...`), for a write key,
 * or a read key for the report ([v2.issues]).
 */
function issueRoute(
  name: string,
  method: 'POST' | 'PUT' | 'GET',
  path: string,
  summary: string,
  access: RouteAccess,
  request: v.GenericSchema = V2IdRequestSchema,
  response: v.GenericSchema = method === 'GET' ? V2ReportSchema : V2IssueSchema,
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
    request,
    response,
  } as const satisfies Route;
}

/** The routes of `{stage}/newsletter/v2`: the original's API v2 (decisions part 11). */
const V2_ROUTES = [
  {
    name: 'v2-subscriptions',
    methods: ['POST'],
    path: '/subscriptions',
    version: 'v2',
    key: 'none',
    // Public as v1's subscribe; a key makes the call trusted (write: it changes subscribers).
    clientKey: { POST: 'optional-write' },
    cors: true,
    formPage: false,
    summary: 'v2: subscribe an address (the keyless subscribe; a write key makes it trusted)',
    access: {
      // As v1's subscribe (rate limit, request record; keyed: read, id, write with tokens),
      // the key check's GetItem and UpdateItem among them.
      table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      queries: [],
      sendsMail: false,
      settings: true,
    },
    // Our subscribe's fields, and v2's place and language (parseV2Place reads them).
    request: v.looseObject({
      ...SubscribeRequestSchema.entries,
      language: V2SubscriberWriteSchema.entries.language,
      country: V2SubscriberWriteSchema.entries.country,
      region: V2SubscriberWriteSchema.entries.region,
      city: V2SubscriberWriteSchema.entries.city,
    }),
    response: V2EmptySchema,
  },
  {
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
    request: V2SubscriberQuerySchema,
    response: v.union([v.array(V2SubscriberSchema), V2SubscriberSchema]),
    csv: {
      answer:
        'Accept: text/csv (ours). Every subscriber, oldest first, as `npx newsletter subscribers ' +
        'export` writes them (id,email,name,surname,gender,lists,status,created,updated,' +
        'profile_<id>...), at most 5,000 per answer; the first part starts with the header row ' +
        '(header=present), the next ones do not (header=absent). The filters do not apply.',
    },
  },
  {
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
    request: V2SubscriberWriteSchema,
    response: v.union([V2SubscriberDetailSchema, V2SubscriberSchema, V2DeletedSchema]),
  },
  {
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
    request: V2ImportRequestSchema,
    response: V2ImportSchema,
    csv: {
      body:
        'Content-Type: text/csv. A part of a subscriber file in the format of `npx newsletter ' +
        'subscribers export`: a header row (email required) and at most 1,000 rows, 1 MiB.',
    },
  },
  {
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
    request: V2SubscriberIssuesRequestSchema,
    response: V2SubscriberIssuesSchema,
    nextLink:
      'While older issues remain: <{path}?before={issue id}>; rel="next", the next page (without credentials: send them again).',
  },
  {
    ...settingsRoute(
      'v2-lists',
      '/lists',
      'v2: every list, private ones included (GET); create one (POST, ours)',
      v.union([v.array(V2ListSchema), V2ListSchema]),
    ),
    methods: ['GET', 'POST'],
    clientKey: { GET: 'read', POST: 'write' },
    // An editor reads the lists an issue goes to; only an admin changes them.
    roles: { GET: 'editor' },
    // The settings document read and written directly (not through the cached extension);
    // GET also reads the subscriber counts (the counter's mark, then Query) for member counts.
    access: { ...LIST_WRITE_ACCESS, table: [...KEY_CHECK, 'dynamodb:Query'] },
    request: V2ListWriteSchema,
  },
  {
    ...settingsRoute(
      'v2-list',
      '/lists/{id}',
      'v2: one list (GET); ours: rename it or change its flags (PUT), delete it (DELETE)',
      v.union([V2ListSchema, V2DeletedSchema]),
    ),
    methods: ['GET', 'PUT', 'DELETE'],
    clientKey: { GET: 'read', PUT: 'write', DELETE: 'write' },
    roles: { GET: 'editor' },
    // DELETE first looks for issues still to be sent that name the list (Query `recent`).
    access: { ...LIST_WRITE_ACCESS, queries: [INDEX.recent.name] },
    request: V2ListWriteSchema,
  },
  {
    ...settingsRoute(
      'v2-extrafields',
      '/extrafields',
      'v2: every extra (profile) field',
      v.array(V2ExtraFieldSchema),
    ),
    // An editor's issue editor offers the profile fields' tags ({profile_<id>}).
    roles: { GET: 'editor' },
  },
  {
    ...settingsRoute(
      'v2-extrafield',
      '/extrafields/{id}',
      'v2: one extra field',
      V2ExtraFieldSchema,
    ),
    roles: { GET: 'editor' },
  },
  {
    name: 'v2-newsletters',
    methods: ['GET'],
    path: '/newsletters',
    version: 'v2',
    key: 'none',
    clientKey: { GET: 'optional' },
    roles: { GET: 'editor' },
    cors: true,
    formPage: false,
    summary: 'v2: sent public newsletters, newest first; with a key every issue',
    access: {
      // The key check; the issues from an index; the content of each on the page (GetItem).
      table: KEY_CHECK,
      queries: [INDEX.recent.name, INDEX.publicRecent.name],
      sendsMail: false,
      settings: true,
    },
    request: V2PageRequestSchema,
    response: v.array(V2NewsletterSchema),
  },
  {
    name: 'v2-newsletter',
    methods: ['GET'],
    path: '/newsletters/{id}',
    version: 'v2',
    key: 'none',
    clientKey: { GET: 'optional' },
    roles: { GET: 'editor' },
    cors: true,
    formPage: false,
    summary: 'v2: one newsletter; a private or unsent one needs a key',
    // The key check; the issue and its content (GetItem each).
    access: { table: KEY_CHECK, queries: [], sendsMail: false, settings: true },
    request: V2IdRequestSchema,
    response: V2NewsletterSchema,
  },
  {
    ...settingsRoute(
      'v2-account',
      '/account',
      "v2 (ours): SES's quota and rate, and the bounce and complaint rates against SES's review levels",
      V2AccountSchema,
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
  },
  {
    ...settingsRoute(
      'v2-settings',
      '/settings',
      'v2 (ours): the settings document as written (GET); replace it, validated as the CLI does (PUT)',
      V2SettingsSchema,
    ),
    methods: ['GET', 'PUT'],
    clientKey: { GET: 'read', PUT: 'write' },
    // The settings document read and written directly (not through the cached extension).
    access: LIST_WRITE_ACCESS,
    request: V2SettingsWriteSchema,
  },
  settingsRoute('v2-test', '/test', 'v2: checks a key; answers {}', V2EmptySchema),
  issueRoute(
    'v2-issues',
    'POST',
    '/issues',
    'v2 (ours): create a draft issue',
    // The key check; an id (UpdateItem), the issue and its content (a transaction of puts).
    { table: [...KEY_CHECK, 'dynamodb:PutItem'], queries: [], sendsMail: false, settings: true },
    V2IssueWriteSchema,
  ),
  issueRoute(
    'v2-issue',
    'PUT',
    '/issues/{id}',
    'v2 (ours): edit an issue: subject, HTML, text, lists, private, url',
    // The key check; the issue read, then its update and its content's put in a transaction.
    { table: [...KEY_CHECK, 'dynamodb:PutItem'], queries: [], sendsMail: false, settings: true },
    V2IssueWriteSchema,
  ),
  issueRoute(
    'v2-issue-copy',
    'POST',
    '/issues/{id}/copy',
    'v2 (ours): copy an issue into a new draft',
    { table: [...KEY_CHECK, 'dynamodb:PutItem'], queries: [], sendsMail: false, settings: true },
  ),
  issueRoute(
    'v2-issue-test',
    'POST',
    '/issues/{id}/test',
    'v2 (ours): send an issue as a test to at most 5 addresses',
    // The issue read; the test queued for the workers on the planner's queue.
    { table: KEY_CHECK, queries: [], sendsMail: false, settings: true, queues: ['plans'] },
    V2IssueWriteSchema,
    V2TestSendSchema,
  ),
  issueRoute(
    'v2-issue-send',
    'POST',
    '/issues/{id}/send',
    'v2 (ours): send an issue to its lists (new_only: to those it has not reached)',
    // The issue; SES's quota and, when the room is below the highest subscriber id, a count of
    // the recipients (Query of the list index; with new_only, which already have a record:
    // BatchGetItem).
    {
      table: [...KEY_CHECK, 'dynamodb:BatchGetItem', 'dynamodb:Query'],
      queries: [],
      sendsMail: false,
      settings: true,
      queues: ['plans'],
      sendQuota: true,
    },
    V2SendRequestSchema,
  ),
  issueRoute(
    'v2-issue-audience',
    'GET',
    '/issues/{id}/audience',
    "v2 (ours): how many an issue's send would reach now, and whether it fits SES's daily quota",
    // The issue; the highest subscriber id (GetItem each); the list index's shards of its lists
    // (Query of the table); with new_only, which members already have a record (BatchGetItem);
    // SES's quota.
    {
      table: [...KEY_CHECK, 'dynamodb:BatchGetItem', 'dynamodb:Query'],
      queries: [],
      sendsMail: false,
      settings: true,
      sendQuota: true,
    },
    V2AudienceRequestSchema,
    V2AudienceSchema,
  ),
  issueRoute('v2-issue-pause', 'POST', '/issues/{id}/pause', 'v2 (ours): pause a sending issue', {
    table: KEY_CHECK,
    queries: [],
    sendsMail: false,
    settings: true,
  }),
  issueRoute('v2-issue-resume', 'POST', '/issues/{id}/resume', 'v2 (ours): resume a paused issue', {
    table: KEY_CHECK,
    queries: [],
    sendsMail: false,
    settings: true,
    queues: ['plans'],
  }),
  {
    ...issueRoute(
      'v2-issue-schedule',
      'POST',
      '/issues/{id}/schedule',
      'v2 (ours): schedule a draft to start sending at a time (POST), or take it back to draft (DELETE)',
      // The issue and its content (GetItem each), its transition (UpdateItem); the one-time
      // schedule created or deleted in the stack's group, with the scheduler role passed.
      { table: KEY_CHECK, queries: [], sendsMail: false, settings: true, schedules: true },
      V2ScheduleRequestSchema,
    ),
    methods: ['POST', 'DELETE'],
    clientKey: { POST: 'write', DELETE: 'write' },
    roles: { POST: 'editor', DELETE: 'editor' },
  },
  issueRoute(
    'v2-issue-cancel',
    'POST',
    '/issues/{id}/cancel',
    'v2 (ours): cancel a scheduled, sending or paused issue',
    { table: KEY_CHECK, queries: [], sendsMail: false, settings: true },
  ),
  {
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
      V2ReportRequestSchema,
    ),
    csv: {
      answer:
        'Accept: text/csv. One row per recipient (email,subscriber_id,outcome,at,message_id), at ' +
        'most 5,000 per answer; the first part starts with the header row (header=present), the ' +
        'next ones do not (header=absent), so the parts concatenate into one file. ' +
        'A signed-in editor gets the JSON (counts and rates) only: the rows are for admins.',
      answerRole: 'admin',
    },
  },
  {
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
    request: PersonWriteSchema,
    response: v.union([v.array(PersonEntrySchema), AddedPersonSchema]),
  },
  {
    name: 'v2-person',
    methods: ['DELETE'],
    path: '/people/{email}',
    version: 'v2',
    key: 'none',
    clientKey: { DELETE: 'write' },
    clientKeys: false,
    cors: false,
    formPage: false,
    summary: 'v2 (ours): remove a person from the console',
    access: {
      table: ['dynamodb:UpdateItem'],
      queries: [],
      sendsMail: false,
      settings: true,
      people: ['cognito-idp:AdminDeleteUser'],
    },
    request: v.looseObject({ email: v.string() }),
    response: v.object({ email: v.string() }),
  },
] as const satisfies readonly Route[];

/** Every route of `{api_root}`; the first six are the interface's endpoints, then the pages. */
export const routes = [
  {
    name: 'subscribe',
    methods: ['POST'],
    path: '/subscribe',
    key: 'optional',
    cors: true,
    formPage: true,
    summary: 'Subscribe an address and start the subscription process',
    access: {
      // Keyless: count the rate limit (UpdateItem) and record the request (PutItem). Keyed: read
      // the subscriber, take an id (UpdateItem), write it with its outbox mails (PutItem) and
      // drop expired tokens (DeleteItem), in one transaction.
      table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      queries: [],
      sendsMail: false,
      settings: true,
    },
    request: SubscribeRequestSchema,
    response: v.union([SubscriberSchema, PublicSubscribeResultSchema]),
  },
  {
    name: 'unsubscribe',
    methods: ['POST'],
    path: '/unsubscribe',
    key: 'required',
    cors: false,
    formPage: false,
    summary: 'Unsubscribe an address',
    access: {
      // Read, then a whole-item put conditional on the version read; a pending activation
      // link's token item is deleted, and the subscriber counts updated, in the same
      // transaction.
      table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
      queries: [],
      sendsMail: false,
      settings: false,
    },
    request: EmailRequestSchema,
    response: SubscriberSchema,
  },
  {
    name: 'subscribers-add',
    methods: ['POST'],
    path: '/subscribers/add',
    key: 'required',
    cors: false,
    formPage: false,
    summary: 'Add a subscriber directly, without the subscription process',
    access: {
      // Look before taking an id, take one (UpdateItem on the counter), conditional put.
      table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      queries: [],
      sendsMail: false,
      settings: true,
    },
    request: AddSubscriberRequestSchema,
    response: SubscriberSchema,
  },
  {
    name: 'subscribers-delete',
    methods: ['POST'],
    path: '/subscribers/delete',
    key: 'required',
    cors: false,
    formPage: false,
    summary: 'Delete a subscriber and everything stored for it',
    access: {
      // Read, then delete the subscriber and its token items in one transaction; then erase
      // their opens and clicks (UpdateItem the ENGAGED item and each recipient record).
      table: ['dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
      queries: [],
      sendsMail: false,
      settings: false,
    },
    request: EmailRequestSchema,
    response: DeleteResultSchema,
  },
  {
    name: 'subscribers-list',
    methods: ['POST'],
    path: '/subscribers',
    key: 'required',
    cors: false,
    formPage: false,
    summary: 'The 20 most recently created subscribers',
    access: { table: [], queries: [INDEX.recent.name], sendsMail: false, settings: false },
    request: NoParametersSchema,
    response: v.array(SubscriberSchema),
  },
  {
    name: 'newsletters',
    methods: ['GET'],
    path: '/newsletters',
    key: 'optional',
    cors: true,
    formPage: false,
    summary: 'The 10 most recently created newsletters',
    access: {
      table: [],
      // All issues for keyed calls, the sparse index of sent public ones for keyless calls.
      queries: [INDEX.recent.name, INDEX.publicRecent.name],
      sendsMail: false,
      settings: false,
    },
    request: NoParametersSchema,
    response: v.array(NewsletterIssueSchema),
  },
  {
    name: 'subscription-confirm',
    methods: ['GET', 'POST'],
    path: '/subscription/confirm',
    key: 'none',
    cors: false,
    formPage: false,
    summary: 'Activation link: GET shows a confirm button, POST confirms',
    access: {
      // Read token and subscriber; write the confirmation with its outbox mails (PutItem),
      // dropping expired tokens (DeleteItem) and updating the subscriber counts (UpdateItem),
      // in one transaction.
      table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
      queries: [],
      sendsMail: false,
      settings: true,
    },
    request: TokenRequestSchema,
    response: 'html',
  },
  {
    name: 'subscription-unsubscribe',
    methods: ['GET', 'POST'],
    path: '/subscription/unsubscribe',
    key: 'none',
    cors: false,
    formPage: false,
    summary: 'Unsubscribe link: GET shows a button, POST (or RFC 8058 one-click) unsubscribes',
    access: {
      // Read token and subscriber, then a conditional put of the unsubscribed record, with
      // the activation link's token item deleted in the same transaction. A campaign mail's
      // link: its recipient record (GetItem), the subscriber's address by id (Query `recent`),
      // and the mark on the record that the person left through it (UpdateItem).
      table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
      queries: ['recent'],
      sendsMail: false,
      settings: false,
    },
    request: TokenRequestSchema,
    response: 'html',
  },
  {
    name: 'newsletter-view',
    methods: ['GET'],
    path: '/newsletters/{id}/view',
    key: 'none',
    // Public as the listing that links to it; a page of another site may fetch and show it.
    cors: true,
    formPage: false,
    summary: 'The web version of a sent, public newsletter, as an HTML page without personal data',
    access: {
      // The issue (its status and privacy), then its content: two reads, nothing about anyone;
      // the settings for what an empty tag reads as (campaign.tag_fallbacks).
      table: ['dynamodb:GetItem'],
      queries: [],
      sendsMail: false,
      settings: true,
    },
    request: ViewRequestSchema,
    response: 'html-document',
  },
  {
    name: 'openapi',
    methods: ['GET'],
    path: '/openapi.json',
    key: 'none',
    cors: true,
    formPage: false,
    summary: 'This API description (OpenAPI 3.1)',
    access: { table: [], queries: [], sendsMail: false, settings: false },
    request: NoParametersSchema,
    response: 'openapi',
  },
  ...V2_ROUTES,
] as const satisfies readonly Route[];

/** The name of a route: a typo in a handler module fails the type check. */
export type RouteName = (typeof routes)[number]['name'];

/**
 * The least role a signed-in person needs for a method of a v2 route ([console.roles]): what
 * the route table says, else `admin`; for a GET answered as CSV, its `csv.answerRole` when it
 * names one ([report.editor]). The one place roles are decided.
 */
export function roleNeeded(route: Route, method: HttpMethod, csvAnswer = false): PersonRole {
  if (csvAnswer && method === 'GET' && route.csv?.answerRole) return route.csv.answerRole;
  return route.roles?.[method] ?? 'admin';
}

/** The route of that name. */
export function routeNamed(name: RouteName): Route {
  const route = routes.find((candidate) => candidate.name === name);
  if (!route) throw new Error(`No route named ${name} in functions/routes.ts`);
  return route;
}
