import {
  type ConversionConfig,
  type JsonSchema,
  toJsonSchema,
  toJsonSchemaDefs,
} from '@valibot/to-json-schema';
import * as v from 'valibot';
import { ERROR_STATUS, type ErrorCode } from '../../shared/domain/errors.ts';
import { NewsletterIssueSchema } from '../../shared/domain/newsletter-issue.ts';
import { SubscriberSchema } from '../../shared/domain/subscriber.ts';
import { DeleteResultSchema } from '../../shared/operations/delete-subscriber.ts';
import { PublicSubscribeResultSchema } from '../../shared/operations/subscribe.ts';
import { type HttpMethod, type Route, routes } from '../routes.ts';
import { MAX_BODY_BYTES } from './parse-request.ts';

/**
 * The JSON error body (decisions part 6) with these codes; documents an API. `more` names what
 * some errors carry in `data` beside the status.
 */
export function errorBodySchema(
  codes: readonly [string, ...string[]],
  description: string,
  more: v.ObjectEntries = {},
) {
  return v.pipe(
    v.strictObject({
      code: v.pipe(v.picklist(codes), v.description(description)),
      message: v.pipe(v.string(), v.description('A sentence a person understands.')),
      data: v.strictObject({
        status: v.pipe(v.number(), v.integer()),
        request_id: v.optional(
          v.pipe(v.string(), v.description('On 5xx: quote it when asking for help.')),
        ),
        ...more,
      }),
    }),
    v.title('Error'),
  );
}

/** The JSON error body of v1 (decisions part 6). */
export const ErrorBodySchema = errorBodySchema(
  Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]],
  'Machine-readable error code.',
);

/** Named schemas, emitted once under components and referenced everywhere else. */
const COMPONENTS = {
  Subscriber: SubscriberSchema,
  PublicSubscribeResult: PublicSubscribeResultSchema,
  DeleteResult: DeleteResultSchema,
  NewsletterIssue: NewsletterIssueSchema,
  Error: ErrorBodySchema,
} satisfies Record<string, v.GenericSchema>;

/** How a description converts its schemas: `components` named, referenced everywhere else. */
export function conversionOf(components: Record<string, v.GenericSchema>): ConversionConfig {
  return {
    target: 'draft-2020-12',
    // Transformations (trim, lower-case) and custom checks have no JSON Schema equivalent; the
    // descriptions say what they do.
    errorMode: 'ignore',
    definitions: components,
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  };
}

const CONVERSION = conversionOf(COMPONENTS);

/** A JSON object of the description. */
export type Json = Record<string, unknown>;

/** A valibot schema as JSON Schema under `conversion`, named schemas as references. */
export function jsonSchemaOf(valibot: v.GenericSchema, conversion: ConversionConfig): Json {
  // Named schemas live under components; drop the copies the converter inlines as $defs.
  const {
    $schema: _dialect,
    $defs: _copies,
    ...schema
  } = toJsonSchema(valibot, conversion) as Json;
  return schema;
}

/** A valibot schema of v1 as JSON Schema, named schemas as references under components. */
export function schemaOf(valibot: v.GenericSchema): Json {
  return jsonSchemaOf(valibot, CONVERSION);
}

const API_KEY_PROPERTY = { type: 'string', description: 'The API key.' };

/** The parameters of a route as one object schema, with `api_key` as the route table says. */
function parametersSchema(route: Route): Json {
  const schema = schemaOf(route.request);
  if (route.key === 'none') return schema;
  const properties = { ...(schema.properties as Json | undefined), api_key: API_KEY_PROPERTY };
  const required = [...((schema.required as string[] | undefined) ?? [])];
  if (route.key === 'required') required.push('api_key');
  return { ...schema, properties, ...(required.length ? { required } : {}) };
}

/** The `paths` of a description: each route's methods, described by `operation`. */
export function pathsOf(
  described: readonly Route[],
  operation: (route: Route, method: HttpMethod) => Json,
): Json {
  const paths: Json = {};
  for (const route of described) {
    const item: Json = {};
    for (const method of route.methods) item[method.toLowerCase()] = operation(route, method);
    paths[route.path] = item;
  }
  return paths;
}

/** The named schemas of a description's `conversion`, as its `components.schemas`. */
export function componentsOf(conversion: ConversionConfig): Record<string, Json> {
  const { definitions = {}, ...rest } = conversion;
  const components: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(toJsonSchemaDefs(definitions, rest))) {
    const { $schema: _dialect, ...json } = schema as JsonSchema & Json;
    components[name] = json;
  }
  return components;
}

/** An error answer of a description: the named Error schema. */
export const errorResponse = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function successResponse(route: Route): Json {
  if (route.response === 'html') {
    return {
      description: 'An HTML page',
      content: { 'text/html': { schema: { type: 'string' } } },
    };
  }
  if (route.response === 'html-document') {
    return {
      description: 'An HTML page',
      headers: {
        'Cache-Control': {
          description: 'public, max-age=300: browsers and shared caches may keep it 5 minutes.',
          schema: { type: 'string' },
        },
      },
      content: { 'text/html': { schema: { type: 'string' } } },
    };
  }
  if (route.response === 'openapi') {
    return {
      description: 'This document',
      content: { 'application/json': { schema: { type: 'object' } } },
    };
  }
  return {
    description: 'Success',
    content: { 'application/json': { schema: schemaOf(route.response) } },
  };
}

function responses(route: Route, method: HttpMethod): Json {
  const out: Json = { '200': successResponse(route) };
  if (route.response === 'html') {
    out['404'] = {
      description: 'The link is unknown or expired (an HTML page)',
      content: { 'text/html': {} },
    };
    out['503'] = {
      description: 'A dependency is unavailable (an HTML page)',
      content: { 'text/html': {} },
    };
    return out;
  }
  if (route.response === 'openapi') return out;
  if (route.response === 'html-document') {
    out['404'] = errorResponse('No sent, public newsletter has this id');
    out['405'] = errorResponse(`Wrong method; ${route.path} accepts ${route.methods.join(', ')}`);
    out['500'] = errorResponse('Unexpected failure; data.request_id identifies it');
    out['503'] = errorResponse('DynamoDB unavailable; try again');
    return out;
  }
  out['400'] = errorResponse(
    `A parameter is missing or wrong, malformed body, or a body over ${MAX_BODY_BYTES / 1024} KiB`,
  );
  if (route.key !== 'none')
    out['403'] = errorResponse('The API key is missing or wrong (or a private list without key)');
  if (route.name === 'unsubscribe' || route.name === 'subscribers-delete')
    out['404'] = errorResponse('No such subscriber');
  out['405'] = errorResponse(`Wrong method; ${route.path} accepts ${route.methods.join(', ')}`);
  if (route.name === 'subscribe' && method === 'POST')
    out['429'] = errorResponse('Too many keyless calls from this client');
  if (route.formPage) {
    out['200'] = {
      ...(out['200'] as Json),
      content: {
        ...((out['200'] as Json).content as Json),
        'text/html': { schema: { type: 'string', description: "A browser's form post: a page" } },
      },
    };
    out['303'] = { description: "A browser's form post: to form_success_url or form_error_url" };
  }
  out['500'] = errorResponse('Unexpected failure; data.request_id identifies it');
  out['503'] = errorResponse('DynamoDB, SES or SSM unavailable; try again');
  return out;
}

/** Form field spellings a schema's `lists` and `profile` also arrive as (decisions part 1). */
function withFormSpellings(schema: Json): Json {
  const properties = (schema.properties as Json | undefined) ?? {};
  if (!('lists' in properties) && !('profile' in properties)) return schema;
  const text = { type: 'string' };
  return {
    ...schema,
    patternProperties: {
      ...('lists' in properties ? { '^lists\\[\\d*\\]$': text } : {}),
      ...('profile' in properties
        ? { '^profile\\[[A-Za-z0-9_]+\\]$': text, '^profile_[A-Za-z0-9_]+$': text }
        : {}),
    },
  };
}

const QUERY_NOTE =
  'Parameters may also be sent in the query string, as WordPress merges them; the body wins ' +
  'on conflict. A key in a URL ends up in the logs of every proxy: send it in the body.';

function operation(route: Route, method: HttpMethod): Json {
  const operationId =
    route.methods.length > 1 ? `${route.name}-${method.toLowerCase()}` : route.name;
  const schema = parametersSchema(route);
  const base: Json = { operationId, summary: route.summary, responses: responses(route, method) };
  if (method === 'GET') {
    const properties = (schema.properties as Record<string, Json> | undefined) ?? {};
    const required = new Set((schema.required as string[] | undefined) ?? []);
    // A property named in the path (`/newsletters/{id}/view`) is a path parameter.
    const parameters = Object.entries(properties).map(([name, property]) => {
      const inPath = route.path.includes(`{${name}}`);
      return {
        name,
        in: inPath ? 'path' : 'query',
        required: inPath || required.has(name),
        schema: property,
      };
    });
    return parameters.length ? { ...base, parameters } : base;
  }
  const forms =
    route.response === 'html'
      ? ['application/x-www-form-urlencoded']
      : ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];
  const tokenInQuery =
    route.response === 'html'
      ? {
          parameters: [{ name: 'token', in: 'query', required: false, schema: { type: 'string' } }],
        }
      : {};
  return {
    ...base,
    description: route.formPage
      ? `${QUERY_NOTE} A browser's plain form post (Accept preferring text/html) lands on an HTML page, or on a 303 to the form URLs of the settings.`
      : QUERY_NOTE,
    ...tokenInQuery,
    requestBody: {
      required: route.key === 'required' || route.name === 'subscribe',
      content: Object.fromEntries(
        forms.map((type) => [
          type,
          { schema: type === 'application/json' ? schema : withFormSpellings(schema) },
        ]),
      ),
    },
  };
}

/**
 * The OpenAPI 3.1 description of the API, generated from the route table and the valibot
 * schemas the code validates with. `docs/openapi.json` is this, written by `npm run openapi`.
 */
export function openApiDocument(): Json {
  // API v2 lives under another root with its own keys: it has a description of its own.
  const paths = pathsOf(
    routes.filter((each) => !('version' in each) || each.version !== 'v2'),
    operation,
  );
  const components = componentsOf(CONVERSION);
  return {
    openapi: '3.1.0',
    info: {
      title: 'serverless-newsletter',
      version: '1.0.0',
      description:
        'Subscription and subscriber management. Parameters go as JSON or form fields (also in the ' +
        'query string); `api_key` is a parameter, never a header. null and "" mean "not given" for ' +
        'every optional parameter; unknown parameters are ignored. The public routes (subscribe, ' +
        'newsletters, this description) answer CORS preflights; keyed routes never send CORS ' +
        'headers. Errors: {"code", "message", "data": {"status"}}. Known error codes: ' +
        `${Object.keys(ERROR_STATUS).join(', ')}.`,
    },
    servers: [
      {
        url: 'https://{host}/{stage}/newsletter/v1',
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
    components: { schemas: components },
  };
}

/** The description as committed in docs/openapi.json. */
export function openApiFileContent(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}
