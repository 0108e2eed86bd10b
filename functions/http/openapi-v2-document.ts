import * as v from 'valibot';
import { ERROR_STATUS, type ErrorCode } from '../../shared/domain/errors.ts';
import {
  V2ExtraFieldSchema,
  V2ImportStoppedSchema,
  V2ListSchema,
  V2NewsletterSchema,
} from '../../shared/domain/v2/v2-shapes.ts';
import { V2SubscriberSchema } from '../../shared/domain/v2/v2-subscriber.ts';
import { type HttpMethod, type Route, roleNeeded, routes } from '../routes.ts';
import {
  componentsOf,
  conversionOf,
  errorBodySchema,
  errorResponse,
  type Json,
  jsonSchemaOf,
  pathsOf,
} from './openapi-document.ts';
import { eventWebhooks } from './openapi-events.ts';

/** The error body of v2: v1's, with the original's code `-1` for what is not found. */
const V2ErrorBodySchema = errorBodySchema(
  ['-1', ...(Object.keys(ERROR_STATUS) as ErrorCode[])],
  'Machine-readable error code; -1: no such subscriber, list, field or issue.',
  { import: v.optional(V2ImportStoppedSchema) },
);

/** Named schemas of the v2 description. */
const COMPONENTS = {
  V2Subscriber: V2SubscriberSchema,
  V2List: V2ListSchema,
  V2ExtraField: V2ExtraFieldSchema,
  V2Newsletter: V2NewsletterSchema,
  Error: V2ErrorBodySchema,
} satisfies Record<string, v.GenericSchema>;

const CONVERSION = conversionOf(COMPONENTS);

const schemaOf = (valibot: v.GenericSchema): Json => jsonSchemaOf(valibot, CONVERSION);

const error = errorResponse;

const PAGE_HEADERS = {
  'X-WP-Total': { description: 'Items in the whole collection.', schema: { type: 'integer' } },
  'X-WP-TotalPages': { description: 'Pages of per_page items.', schema: { type: 'integer' } },
};

/** The `Link` of an answer in parts or pages. */
const linkHeader = (description: string) => ({
  Link: { description, schema: { type: 'string' } },
});

const CSV_LINK =
  'CSV only, while rows remain: <{path}?after={subscriber id}>; rel="next", the next part ' +
  '(without credentials: send them again).';

/** What a method of a v2 route answers; success status 201 for a creation. */
function responses(route: Route, method: HttpMethod): Json {
  const policy = route.clientKey?.[method];
  const created = method === 'POST' || method === 'PUT';
  const csv = method === 'GET' ? route.csv?.answer : undefined;
  const paged = !route.path.includes('{id}') && method === 'GET';
  const headers = {
    ...(paged ? PAGE_HEADERS : {}),
    ...(csv ? linkHeader(CSV_LINK) : {}),
    ...(route.nextLink && method === 'GET' ? linkHeader(route.nextLink) : {}),
  };
  const success: Json = {
    description: 'Success',
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: {
      'application/json': { schema: schemaOf(route.response as v.GenericSchema) },
      ...(csv ? { 'text/csv': { schema: { type: 'string', description: csv } } } : {}),
    },
  };
  const out: Json = { '200': success };
  if (created) out['201'] = { ...success, description: 'Created' };
  out['400'] = error('A parameter is missing or wrong, malformed body');
  out['401'] = error(
    'rest_forbidden: no credentials where needed; tnp_auth_error: unknown key or wrong secret',
  );
  out['403'] = error('The key lacks the permission (or a private issue or list without a key)');
  if (route.path.includes('{id}'))
    out['404'] = error('Unknown subscriber, list, field or issue (code -1)');
  if (route.path.includes('{email}')) out['404'] = error('No one of that address in the console');
  if (route.path.startsWith('/issues/'))
    out['409'] = error("invalid_state: the issue's lifecycle forbids this now");
  else if (route.path.startsWith('/lists/') && method === 'DELETE')
    out['409'] = error('list_in_use: an issue not sent yet goes to the list');
  else if (route.path === '/people' && method === 'POST')
    out['409'] = error('person_exists: that address is in the console already');
  else if (route.path.startsWith('/subscribers') && method === 'PUT')
    out['409'] = error("email_taken: the address is another subscriber's");
  out['405'] = error(`Wrong method; ${route.path} accepts ${route.methods.join(', ')}`);
  if (policy !== undefined) out['429'] = error('Too many failed key checks from this client');
  out['500'] = error('Unexpected failure; data.request_id identifies it');
  out['503'] =
    route.name === 'v2-subscribers-import'
      ? error(
          'DynamoDB or SSM unavailable. Once rows were written, data.import says what the part wrote and which lines it did not: post those again',
        )
      : error('DynamoDB or SSM unavailable; try again');
  return out;
}

function operation(route: Route, method: HttpMethod): Json {
  const policy = route.clientKey?.[method] ?? 'optional';
  const request = schemaOf(route.request);
  const properties = (request.properties as Record<string, Json> | undefined) ?? {};
  const inPath = Object.keys(properties).filter((name) => route.path.includes(`{${name}}`));
  const parameters = [
    ...inPath.map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
      description: route.path.startsWith('/subscribers')
        ? 'An id (digits) or an address.'
        : 'The id.',
    })),
    ...(method === 'GET' || route.csv?.body
      ? Object.entries(properties)
          .filter(([name]) => !inPath.includes(name))
          .map(([name, schema]) => ({ name, in: 'query', required: false, schema }))
      : []),
  ];
  const anonymous = policy === 'optional' || policy === 'optional-write';
  const needs = policy === 'write' || policy === 'optional-write' ? 'write' : 'read';
  const csvBody = route.csv?.body;
  const body = csvBody
    ? {
        requestBody: {
          required: true,
          content: { 'text/csv': { schema: { type: 'string', description: csvBody } } },
        },
      }
    : method === 'POST' || method === 'PUT'
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              ['application/json', 'application/x-www-form-urlencoded'].map((type) => [
                type,
                { schema: request },
              ]),
            ),
          },
        }
      : {};
  const role = roleNeeded(route, method);
  const keys = route.clientKeys !== false;
  const signedIn = ` A signed-in console person's ID token (Authorization: Bearer) may be given instead; it needs the role ${role}.`;
  return {
    operationId: `${route.name}-${method.toLowerCase()}`,
    summary: route.summary,
    description: !keys
      ? `Only for a signed-in console person with the role ${role} (Authorization: Bearer <Cognito ID token>); no key may call it, not even one with ${needs} permission.`
      : (policy === 'optional-write'
          ? 'Public; a key with write permission makes the call trusted, a read key grants nothing.'
          : anonymous
            ? `Public; a key, if given, must be right and have ${needs} permission.`
            : `Needs a key with ${needs} permission.`) + signedIn,
    security: [
      ...(anonymous ? [{}] : []),
      ...(keys ? [{ basic: [] }, { clientKey: [], clientSecret: [] }] : []),
      { bearer: [] },
    ],
    ...(parameters.length ? { parameters } : {}),
    ...body,
    responses: responses(route, method),
  };
}

/**
 * The OpenAPI 3.1 description of API v2 (`{stage}/newsletter/v2`), from the route table and the
 * schemas the code answers with; `docs/openapi-v2.json` is this, written by `npm run openapi`.
 */
export function openApiV2Document(): Json {
  const paths = pathsOf(
    routes.filter((each) => 'version' in each && each.version === 'v2'),
    operation,
  );
  const components = componentsOf(CONVERSION);
  return {
    openapi: '3.1.0',
    info: {
      title: 'serverless-newsletter API v2',
      version: '2.0.0',
      description:
        "The WordPress Newsletter plugin's API v2, with named keys (client_key and " +
        'client_secret, in the query string or as HTTP Basic) whose permissions (read, write) ' +
        'are enforced. Collections take page and per_page (1 and 10 by default, at most 100) ' +
        'and answer X-WP-Total and X-WP-TotalPages. Errors: {"code", "message", "data": ' +
        '{"status"}}; an unknown subscriber, list or issue has the code -1. Known error codes: ' +
        `-1, ${Object.keys(ERROR_STATUS).join(', ')}.`,
    },
    servers: [
      {
        url: 'https://{host}/{stage}/newsletter/v2',
        variables: {
          host: {
            default: 'localhost:3000',
            description: "The distribution's host (the stack's ApiRoot) or its custom domain",
          },
          stage: { default: 'api', description: 'API Gateway stage (the path prefix)' },
        },
      },
    ],
    paths,
    webhooks: eventWebhooks(),
    components: {
      schemas: components,
      securitySchemes: {
        basic: {
          type: 'http',
          scheme: 'basic',
          description: 'client_key as user, client_secret as password',
        },
        clientKey: { type: 'apiKey', in: 'query', name: 'client_key' },
        clientSecret: { type: 'apiKey', in: 'query', name: 'client_secret' },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "A console person's Amazon Cognito ID token (the stack's user pool and app client); " +
            'the role is the cognito:groups claim, admin or editor.',
        },
      },
    },
  };
}

/** The description as committed in docs/openapi-v2.json. */
export function openApiV2FileContent(): string {
  return `${JSON.stringify(openApiV2Document(), null, 2)}\n`;
}
