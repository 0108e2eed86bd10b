/**
 * The stack's CloudFront distribution on loopback: the public address of the console and the
 * API, as deployed ([console.distribution], [http.front-door]). Requests under the API
 * behaviour's path pattern pass the distribution's web ACL (AWS WAF, per viewer address), run
 * the behaviour's viewer-request CloudFront Function (the template's own code, in a VM
 * context), get the origin's custom headers (the origin secret, written over any a viewer
 * sent) and the viewer's address appended to X-Forwarded-For, and go to the local API Gateway
 * (api-gateway.ts, the execute-api address) over HTTP; its answer comes back as it is. Every
 * other path is the console's, served as its S3 origin and viewer-request rewrite serve it.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createContext, Script } from 'node:vm';
import { readBody } from '../read-body.ts';
import { type Answer, blockedAnswer, webAclRequestOf } from './api-gateway.ts';
import type { DeployedDistribution } from './deployed-stack.ts';
import { TemplateError } from './intrinsics.ts';
import { LocalWebAcl } from './web-acl.ts';

/** Headers of one hop only (RFC 9110, 7.6.1): a proxy never passes them on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/** A body CloudFront passes on; larger ones are API Gateway's to refuse (10 MB). */
const MAX_FORWARDED_BYTES = 64 * 1024 * 1024;

/** Options of the local distribution. */
export interface LocalDistributionOptions {
  readonly distribution: DeployedDistribution;
  /** The local API Gateway's port: the API origin. */
  readonly apiPort: number;
  /** The API origin's host name, as CloudFront sends it (the execute-api host). */
  readonly apiHost: string;
  /** What the default behaviour serves (the console's S3 origin and its rewrite). */
  readonly site: (method: string, url: URL) => Promise<Answer>;
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** The clock of the web ACL's rate-based rules (tests move it). */
  readonly now?: () => number;
}

/** The running distribution. */
export interface LocalDistribution {
  readonly port: number;
  /** `http://localhost:PORT/`: the console, and the API under the stage. */
  readonly url: string;
  readonly server: Server;
  stop(): Promise<void>;
}

/** A CloudFront Functions header or query value (`{ value, multiValue }`). */
interface FunctionValue {
  value: string;
  multiValue?: { value: string }[];
}

/** The part of a CloudFront Functions event the request is. */
interface FunctionRequest {
  method: string;
  uri: string;
  querystring: Record<string, FunctionValue>;
  headers: Record<string, FunctionValue>;
  cookies: Record<string, FunctionValue>;
}

/**
 * A viewer-request CloudFront Function: its code run once in a VM context of its own, its
 * `handler` called per request with CloudFront's event. Throws on code without a handler.
 */
function viewerRequestFunction(
  code: string,
): (event: { viewer: { ip: string }; request: FunctionRequest }) => FunctionRequest {
  const context = createContext({});
  new Script(code).runInContext(context, { timeout: 1_000 });
  const handler = (context as { handler?: unknown }).handler;
  if (typeof handler !== 'function')
    throw new TemplateError('the CloudFront Function has no handler');
  return (event) => {
    const result = (handler as (event: unknown) => unknown)({
      version: '1.0',
      context: { eventType: 'viewer-request', requestId: randomUUID() },
      ...event,
    }) as FunctionRequest | { statusCode: number };
    if (!result || typeof result !== 'object' || !('headers' in result))
      throw new TemplateError('the local cloud runs CloudFront Functions that return the request');
    return result;
  };
}

/** A request's headers as CloudFront Functions see them: lower-case names, repeated values. */
function functionHeaders(
  headers: IncomingHttpHeaders,
  raw: readonly string[],
): FunctionRequest['headers'] {
  // No prototype: a header may be called `__proto__` or `constructor`.
  const out: FunctionRequest['headers'] = Object.create(null);
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const value = raw[i + 1] ?? '';
    const known = out[name];
    if (!known) out[name] = { value };
    else known.multiValue = [...(known.multiValue ?? [{ value: known.value }]), { value }];
  }
  if (!out.host && typeof headers.host === 'string') out.host = { value: headers.host };
  return out;
}

/** Whether a CloudFront path pattern (`*` any characters, `?` one) matches a path. */
export function pathPatternMatches(pattern: string, path: string): boolean {
  const expression = pattern
    .split('')
    .map((character) =>
      character === '*'
        ? '.*'
        : character === '?'
          ? '.'
          : character.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${expression}$`).test(path);
}

/** Starts the distribution on loopback. */
export async function startLocalDistribution(
  options: LocalDistributionOptions,
): Promise<LocalDistribution> {
  const { distribution } = options;
  const webAcl = distribution.webAcl
    ? new LocalWebAcl(distribution.webAcl, options.now)
    : undefined;
  const viewerRequest = distribution.viewerRequestCode
    ? viewerRequestFunction(distribution.viewerRequestCode)
    : undefined;
  const allowed = new Set(distribution.apiMethods);
  // The distribution's names (Host values), known once it listens.
  const ownNames = new Set<string>();

  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const viewerIp = (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
    const url = request.url ?? '/';
    const [uri = '/', query] = url.split(/\?(.*)/s);
    const given: FunctionRequest = {
      method: request.method ?? 'GET',
      uri,
      querystring: {},
      headers: functionHeaders(request.headers, request.rawHeaders),
      cookies: {},
    };
    const passed = viewerRequest
      ? viewerRequest({ viewer: { ip: viewerIp }, request: given })
      : given;
    const body = (await readBody(request, MAX_FORWARDED_BYTES)) ?? Buffer.alloc(0);
    const headers: [string, string][] = [];
    for (const [name, header] of Object.entries(passed.headers)) {
      if (
        HOP_BY_HOP.has(name) ||
        Object.hasOwn(distribution.originHeaders, name) ||
        name === 'x-forwarded-for'
      )
        continue;
      for (const each of header.multiValue ?? [{ value: header.value }])
        headers.push([name, each.value]);
    }
    // CloudFront appends the viewer's address to what the viewer wrote.
    const forwardedFor = request.headers['x-forwarded-for'];
    headers.push(['x-forwarded-for', forwardedFor ? `${forwardedFor}, ${viewerIp}` : viewerIp]);
    for (const [name, value] of Object.entries(distribution.originHeaders))
      headers.push([name, value]);
    headers.push(['host', options.apiHost], ['content-length', String(body.length)]);
    await new Promise<void>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: '127.0.0.1',
          port: options.apiPort,
          method: passed.method,
          path: passed.uri === uri ? url : `${passed.uri}${query === undefined ? '' : `?${query}`}`,
          headers: headers.flat(),
          // A connection per request: a pooled one the gateway is closing as it is picked up
          // would fail the request (ECONNRESET), a failure of the local set-up, not of the API.
          agent: false,
        },
        (answer) => {
          const out: string[] = [];
          for (let i = 0; i < answer.rawHeaders.length; i += 2) {
            const name = answer.rawHeaders[i] ?? '';
            if (HOP_BY_HOP.has(name.toLowerCase()) && name.toLowerCase() !== 'content-length')
              continue;
            out.push(name, answer.rawHeaders[i + 1] ?? '');
          }
          response.writeHead(answer.statusCode ?? 502, out);
          answer.pipe(response);
          answer.on('end', resolve);
          answer.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    // CloudFront answers only for its own names: a Host of another reaches no distribution.
    if (!ownNames.has(String(request.headers.host ?? '').toLowerCase())) {
      await readBody(request, MAX_FORWARDED_BYTES);
      response
        .writeHead(403, { 'Content-Type': 'text/html', 'X-Cache': 'Error from cloudfront' })
        .end('<h1>403 ERROR</h1><p>The request could not be satisfied.</p>');
      return;
    }
    if (pathPatternMatches(distribution.apiPathPattern, url.pathname)) {
      if (!allowed.has(method)) {
        // CloudFront's answer to a method its behaviour does not allow.
        response.writeHead(403, { 'Content-Type': 'text/plain' }).end('Forbidden');
        return;
      }
      const verdict = webAcl?.evaluate(webAclRequestOf(request));
      if (verdict?.action === 'block') {
        await readBody(request, MAX_FORWARDED_BYTES);
        const blocked = blockedAnswer(verdict, randomUUID());
        response.writeHead(blocked.status, blocked.headers).end(blocked.body);
        return;
      }
      await forward(request, response);
      return;
    }
    await readBody(request, MAX_FORWARDED_BYTES);
    // The distribution's web ACL covers the console's files too.
    const verdict = webAcl?.evaluate(webAclRequestOf(request));
    const answer =
      verdict?.action === 'block'
        ? blockedAnswer(verdict, randomUUID())
        : await options.site(method, url);
    response.writeHead(answer.status, answer.headers).end(answer.body);
  };

  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      process.stderr.write(
        `local CloudFront: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
      // CloudFront's answer when its origin cannot be reached.
      if (!response.headersSent)
        response.writeHead(502, { 'Content-Type': 'text/plain' }).end('Bad Gateway');
      else response.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  ownNames.add(`localhost:${port}`).add(`127.0.0.1:${port}`);
  return {
    port,
    url: `http://localhost:${port}/`,
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
