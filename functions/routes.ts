/**
 * The one route table with each route's request and response schemas. The local server routes
 * from it, the CDK stack builds one Lambda and one API Gateway method per entry from it, and
 * the OpenAPI description is generated from it. Its entries are route-table.ts's (one file
 * each in route-table/, of which a function reads only its own); the schemas are joined here,
 * for the description and the tests only, so that no function bundles the schemas of every
 * route. A route is added there, and its schemas here: `ROUTE_SCHEMAS` names every route, or
 * the type check fails.
 */

import * as v from 'valibot';
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

import { type RouteEntry, type RouteName, routeTable } from './route-table.ts';

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
  type RouteName,
  roleNeeded,
  type TableAction,
} from './route-table.ts';

/** What a route takes and gives, for the API description. */
export interface RouteSchemas {
  /** The parameters (body, or query for GET), for the API description. */
  readonly request: v.GenericSchema;
  /**
   * What a 200 carries: JSON of this schema, a link page (`html`: its errors are pages too), a
   * public HTML document whose errors are JSON as every other route's (`html-document`), or the
   * API description itself.
   */
  readonly response: v.GenericSchema | 'html' | 'html-document' | 'openapi';
}

/** One entry of the route table with its schemas. */
export type Route = RouteEntry & RouteSchemas;

/** The schemas of an issue route (`/issues/...`): by id, answering the issue, unless given. */
const issue = (request: v.GenericSchema = V2IdRequestSchema): RouteSchemas => ({
  request,
  response: V2IssueSchema,
});

/** Every route's schemas, by name. */
const ROUTE_SCHEMAS: Readonly<Record<RouteName, RouteSchemas>> = {
  subscribe: {
    request: SubscribeRequestSchema,
    response: v.union([SubscriberSchema, PublicSubscribeResultSchema]),
  },
  unsubscribe: { request: EmailRequestSchema, response: SubscriberSchema },
  'subscribers-add': { request: AddSubscriberRequestSchema, response: SubscriberSchema },
  'subscribers-delete': { request: EmailRequestSchema, response: DeleteResultSchema },
  'subscribers-list': { request: NoParametersSchema, response: v.array(SubscriberSchema) },
  newsletters: { request: NoParametersSchema, response: v.array(NewsletterIssueSchema) },
  'subscription-confirm': { request: TokenRequestSchema, response: 'html' },
  'subscription-unsubscribe': { request: TokenRequestSchema, response: 'html' },
  'newsletter-view': { request: ViewRequestSchema, response: 'html-document' },
  openapi: { request: NoParametersSchema, response: 'openapi' },
  'v2-subscriptions': {
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
  'v2-subscribers': {
    request: V2SubscriberQuerySchema,
    response: v.union([v.array(V2SubscriberSchema), V2SubscriberSchema]),
  },
  'v2-subscriber': {
    request: V2SubscriberWriteSchema,
    response: v.union([V2SubscriberDetailSchema, V2SubscriberSchema, V2DeletedSchema]),
  },
  'v2-subscribers-import': { request: V2ImportRequestSchema, response: V2ImportSchema },
  'v2-subscriber-issues': {
    request: V2SubscriberIssuesRequestSchema,
    response: V2SubscriberIssuesSchema,
  },
  'v2-lists': {
    request: V2ListWriteSchema,
    response: v.union([v.array(V2ListSchema), V2ListSchema]),
  },
  'v2-list': { request: V2ListWriteSchema, response: v.union([V2ListSchema, V2DeletedSchema]) },
  'v2-extrafields': { request: NoParametersSchema, response: v.array(V2ExtraFieldSchema) },
  'v2-extrafield': { request: V2IdRequestSchema, response: V2ExtraFieldSchema },
  'v2-newsletters': { request: V2PageRequestSchema, response: v.array(V2NewsletterSchema) },
  'v2-newsletter': { request: V2IdRequestSchema, response: V2NewsletterSchema },
  'v2-account': { request: NoParametersSchema, response: V2AccountSchema },
  'v2-settings': { request: V2SettingsWriteSchema, response: V2SettingsSchema },
  'v2-test': { request: NoParametersSchema, response: V2EmptySchema },
  'v2-issues': issue(V2IssueWriteSchema),
  'v2-issue': issue(V2IssueWriteSchema),
  'v2-issue-copy': issue(),
  'v2-issue-test': { request: V2IssueWriteSchema, response: V2TestSendSchema },
  'v2-issue-send': issue(V2SendRequestSchema),
  'v2-issue-audience': { request: V2AudienceRequestSchema, response: V2AudienceSchema },
  'v2-issue-pause': issue(),
  'v2-issue-resume': issue(),
  'v2-issue-schedule': issue(V2ScheduleRequestSchema),
  'v2-issue-cancel': issue(),
  'v2-issue-report': { request: V2ReportRequestSchema, response: V2ReportSchema },
  'v2-people': {
    request: PersonWriteSchema,
    response: v.union([v.array(PersonEntrySchema), AddedPersonSchema]),
  },
  'v2-person': {
    request: v.looseObject({ email: v.string() }),
    response: v.object({ email: v.string() }),
  },
};

/** Every route of `{api_root}`, in route-table.ts's order, with its schemas. */
export const routes: readonly Route[] = routeTable.map((entry) => ({
  ...entry,
  ...ROUTE_SCHEMAS[entry.name],
}));

/** The route of that name. */
export function routeNamed(name: RouteName): Route {
  const route = routes.find((candidate) => candidate.name === name);
  if (!route) throw new Error(`No route named ${name} in functions/routes.ts`);
  return route;
}
