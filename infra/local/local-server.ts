import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { errorResponse } from '../../functions/http/responses.ts';
import { type Route, routes } from '../../functions/routes.ts';
import { newsletterError } from '../../shared/errors.ts';
import { toProxyEvent } from './proxy-event.ts';
import { readBody } from './read-body.ts';

/** Where the API lives below the host: `/{stage}/newsletter/v1`, as on API Gateway. */
export const API_BASE_PATH = '/newsletter/v1';

/** API Gateway's own payload limit; bigger requests never reach a function there either. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Loads the handler module of a route, as Lambda would load its bundle. */
async function loadHandler(route: Route): Promise<Handler> {
  const module = (await import(`../../functions/${route.name}.ts`)) as { handler: Handler };
  return module.handler;
}

function lambdaContext(route: Route): Context {
  const fail = () => {
    throw new Error('not available locally');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${route.name}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${route.name}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/local/${route.name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 10_000,
    done: fail,
    fail,
    succeed: fail,
  };
}

function send(response: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  response.writeHead(result.statusCode, headers);
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/** Finds the route for a path below `{api_root}`; a trailing slash reaches the same route. */
export function matchRoute(path: string): Route | undefined {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return routes.find((route) => route.path === trimmed);
}

/** Options of the local API server. */
export interface LocalServerOptions {
  readonly port: number;
  /** First path segment, the API Gateway stage (`api`). */
  readonly stage: string;
  /** Serves paths the route table does not own (e.g. the API description); undefined: 404. */
  readonly extra?: (path: string, request: IncomingMessage) => APIGatewayProxyResult | undefined;
}

/** A running local API. */
export interface LocalServer {
  readonly port: number;
  readonly server: Server;
  stop(): Promise<void>;
}

/**
 * Serves every route of the route table with the same handler modules Lambda runs, fed with
 * API Gateway REST proxy events. Unknown paths answer 404 and wrong methods 405, in the JSON
 * error shape, as the deployed API's gateway responses do.
 */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const handlers = new Map<string, Promise<Handler>>();
  const prefix = `/${options.stage}${API_BASE_PATH}`;

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const body = await readBody(request, GATEWAY_MAX_BODY_BYTES);
      if (body === undefined) {
        send(
          response,
          errorResponse(newsletterError('body_too_large', 'The request body is too large.')),
        );
        return;
      }
      const below = url.pathname.startsWith(`${prefix}/`)
        ? url.pathname.slice(prefix.length)
        : undefined;
      const route = below === undefined ? undefined : matchRoute(below);
      if (!route || below === undefined) {
        const extra = below === undefined ? undefined : options.extra?.(below, request);
        send(
          response,
          extra ?? errorResponse(newsletterError('not_found', `No endpoint at ${url.pathname}.`)),
        );
        return;
      }
      if (!route.methods.includes(request.method as Route['methods'][number])) {
        const result = errorResponse(
          newsletterError(
            'method_not_allowed',
            `${route.path} accepts ${route.methods.join(' and ')}.`,
          ),
        );
        send(response, {
          ...result,
          headers: { ...result.headers, Allow: route.methods.join(', ') },
        });
        return;
      }
      let handler = handlers.get(route.name);
      if (!handler) {
        handler = loadHandler(route);
        handlers.set(route.name, handler);
      }
      const resource = `${API_BASE_PATH}${route.path}`;
      const event = toProxyEvent(request, body, { stage: options.stage, resource, path: resource });
      send(response, await (await handler)(event, lambdaContext(route)));
    } catch (error) {
      // The handlers answer every failure themselves; reaching this is a bug in this server.
      process.stderr.write(
        `local server: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
      if (!response.headersSent) {
        send(
          response,
          errorResponse(newsletterError('internal_error', 'The local server failed.')),
        );
      } else {
        response.destroy();
      }
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
