/**
 * The one loopback endpoint every function's AWS SDK calls go to (`AWS_ENDPOINT_URL`), standing
 * where AWS's own front door stands: it checks the SigV4 signature against the caller's
 * credentials, evaluates every authorization the call needs against the caller's role policy
 * as synthesized, answers a refusal exactly as the service would (AccessDeniedException in the
 * service's protocol), and forwards what is allowed to the local stand-in of that service.
 * Every call is recorded, so tests can show which grants were used and that none was refused.
 * It is also where faults are injected (a service unreachable, throttling, lost answers).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { readBody } from '../read-body.ts';
import {
  type AccountFacts,
  authorizationsFor,
  callAllowed,
  decisiveRefusal,
  type RequiredAuthorization,
  readWireCall,
  summarizeCall,
} from './aws-requests.ts';
import type { PolicyDocument } from './deployed-stack.ts';
import { evaluate } from './iam-evaluator.ts';
import { inProcessUpstream } from './in-process-upstreams.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './intrinsics.ts';
import type { FunctionCredentials } from './lambda-host.ts';

/** Who may call: a function's role. */
export interface Caller {
  /** Name for messages and records, e.g. the function's name. */
  readonly name: string;
  readonly roleArn: string;
  readonly policy: PolicyDocument;
  /**
   * Record only the first of identical calls (same operation, same authorizations): for a
   * caller that repeats itself without end, such as a stream poller, so the record stays the
   * size of what it does, not of how long it ran.
   */
  readonly recordDistinctOnly?: boolean;
}

/** One authorization of a recorded call and its verdict. */
export interface Authorization extends RequiredAuthorization {
  readonly allowed: boolean;
  /** Allow statements that matched. */
  readonly statements: readonly string[];
}

/** A call as the endpoint saw it. */
export interface RecordedCall {
  readonly caller: string;
  readonly service: string;
  readonly operation: string;
  /** What was called, without values: `GetItem SUBSCRIBER`, `Query recent`, ... */
  readonly summary: string;
  /**
   * The SDK's attempt at the call (its `amz-sdk-request` header): 1, or more for a retry after
   * a throttle, a timeout or a dropped connection. 1 when a client sends no such header.
   */
  readonly attempt: number;
  /**
   * The Lambda invocation that made the call: the Root of its X-Amzn-Trace-Id, which the SDK
   * sends from the invocation's `_X_AMZN_TRACE_ID`. Absent for a caller outside an invocation.
   */
  readonly invocation?: string;
  readonly authorizations: readonly Authorization[];
  readonly allowed: boolean;
}

/** A refused call, described the way AWS's message does. */
export interface Denial {
  readonly caller: string;
  readonly action: string;
  readonly resource: string;
  readonly message: string;
}

/** A fault to inject into calls to one service. */
export type Fault =
  /** The service does not answer: connections are dropped. */
  | { readonly kind: 'unreachable' }
  /**
   * Calls are throttled: every one, a share of them (`share`, drawn with `random`), or the
   * next `count` ones.
   */
  | {
      readonly kind: 'throttle';
      readonly share?: number;
      readonly random?: () => number;
      count?: number;
    }
  /** The next `count` calls of `operation` reach the service, but their answers are lost. */
  | { readonly kind: 'lose-answers'; readonly operation: string; count: number };

/** Services the endpoint forwards to a stand-in (the Scheduler is the local cloud's own). */
export type ServiceName =
  | 'dynamodb'
  | 'ssm'
  | 'ses'
  | 'sqs'
  | 'scheduler'
  | 'cognito-idp'
  | 'events';

/** Options of the endpoint. */
export interface AwsEndpointOptions {
  /** Where each service's stand-in listens. */
  readonly upstreams: Partial<Record<ServiceName, string>>;
  readonly facts: Omit<AccountFacts, 'ssmKeyArn'>;
  /** Called for every refused call, e.g. to fail a test run. */
  readonly onDenied?: (denial: Denial) => void;
  /** Called once the stand-in has answered a forwarded call (its answer lost or not). */
  readonly onForwarded?: (service: string, operation: string) => void;
}

/** The running endpoint. */
export interface AwsEndpoint {
  readonly url: string;
  /** Gives a caller its own credentials; calls signed with them are evaluated for it. */
  register(caller: Caller): FunctionCredentials;
  setUpstream(service: ServiceName, url: string): void;
  /** Injects a fault into calls to a service; undefined clears it. */
  setFault(service: ServiceName, fault: Fault | undefined): void;
  readonly calls: readonly RecordedCall[];
  readonly denials: readonly Denial[];
  /** Counts per service of calls throttled, dropped and forwarded. */
  readonly counts: Record<string, { throttled: number; dropped: number; forwarded: number }>;
  stop(): Promise<void>;
}

/** The id of the aws/ssm key of the local account. */
export const SSM_KEY_ARN = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT}:key/4f1c8b2e-6a0d-4c7e-9b1a-5d3e2f7a9c10`;

const MAX_BODY_BYTES = 16 * 1024 * 1024;

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData): Uint8Array | string =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

/** A SHA-256 hash or HMAC for the signer, on node:crypto. */
class Sha256 {
  #hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  readonly #secret: Uint8Array | string | undefined;
  constructor(secret?: SourceData) {
    this.#secret = secret === undefined ? undefined : bytes(secret);
    this.#hash =
      this.#secret === undefined ? createHash('sha256') : createHmac('sha256', this.#secret);
  }
  update(data: SourceData): void {
    this.#hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.#hash.digest()));
  }
  reset(): void {
    this.#hash =
      this.#secret === undefined ? createHash('sha256') : createHmac('sha256', this.#secret);
  }
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

interface Registered {
  readonly caller: Caller;
  readonly credentials: FunctionCredentials;
}

/** Starts the endpoint on a free loopback port. */
export async function startAwsEndpoint(options: AwsEndpointOptions): Promise<AwsEndpoint> {
  const upstreams = new Map<string, string>(Object.entries(options.upstreams));
  const faults = new Map<string, Fault>();
  const byAccessKey = new Map<string, Registered>();
  const calls: RecordedCall[] = [];
  const seen = new Set<string>();
  const denials: Denial[] = [];
  const counts: AwsEndpoint['counts'] = {};
  const facts: AccountFacts = { ...options.facts, ssmKeyArn: SSM_KEY_ARN };
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const sockets = new Set<Socket>();
  const countsOf = (service: string) => {
    counts[service] ??= { throttled: 0, dropped: 0, forwarded: 0 };
    return counts[service];
  };

  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readBody(incoming, MAX_BODY_BYTES);
    if (body === undefined) {
      response.writeHead(413).end();
      return;
    }
    const authorization = String(incoming.headers.authorization ?? '');
    const scope = AUTHORIZATION.exec(authorization);
    const service = scope?.[4] ?? 'unknown';
    const protocol = protocolOf(service, incoming);
    const registered = scope ? byAccessKey.get(scope[1] ?? '') : undefined;
    if (!scope || !registered) {
      reply(
        response,
        protocol,
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
        403,
      );
      return;
    }
    const { caller, credentials } = registered;
    if (incoming.headers['x-amz-security-token'] !== credentials.sessionToken) {
      reply(
        response,
        protocol,
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
        403,
      );
      return;
    }
    if (!(await signatureMatches(incoming, body, scope, credentials))) {
      reply(
        response,
        protocol,
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided.',
        403,
      );
      return;
    }
    const call = readWireCall(
      service,
      incoming.headers,
      incoming.url ?? '/',
      body,
      incoming.method,
    );
    if (!call) {
      reply(response, protocol, 'SerializationException', 'The request could not be read.', 400);
      return;
    }
    const requests = authorizationsFor(call, facts);
    const authorizations: Authorization[] = [];
    for (const request of requests) {
      const verdict = await evaluate(caller.roleArn, caller.policy, request);
      authorizations.push({ ...request, allowed: verdict.allowed, statements: verdict.statements });
    }
    const allowed = callAllowed(
      authorizations,
      authorizations.map((each) => each.allowed),
    );
    const recorded: RecordedCall = {
      caller: caller.name,
      service,
      operation: call.operation,
      summary: summarizeCall(call),
      attempt: attemptOf(incoming.headers['amz-sdk-request']),
      ...invocationOf(incoming.headers['x-amzn-trace-id']),
      authorizations,
      allowed,
    };
    const signature = caller.recordDistinctOnly
      ? JSON.stringify([caller.name, recorded.summary, recorded.allowed, requests])
      : undefined;
    if (signature === undefined || !seen.has(signature)) {
      if (signature !== undefined) seen.add(signature);
      calls.push(recorded);
    }
    if (!allowed) {
      const refused = decisiveRefusal(authorizations) ?? authorizations[0];
      const action = refused?.action ?? `${service}:${call.operation}`;
      const resource = refused?.resource ?? '*';
      const session = caller.roleArn
        .replace(':iam::', ':sts::')
        .replace(':role/', ':assumed-role/');
      const message = `User: ${session}/${caller.name} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`;
      const denial: Denial = { caller: caller.name, action, resource, message };
      denials.push(denial);
      options.onDenied?.(denial);
      reply(response, protocol, 'AccessDeniedException', message, protocol === 'query' ? 403 : 400);
      return;
    }

    const fault = faults.get(service);
    const tally = countsOf(service);
    if (fault?.kind === 'unreachable') {
      tally.dropped += 1;
      incoming.socket.destroy();
      return;
    }
    if (
      fault?.kind === 'throttle' &&
      (fault.count === undefined || fault.count > 0) &&
      (fault.share === undefined || (fault.random ?? Math.random)() < fault.share)
    ) {
      if (fault.count !== undefined) fault.count -= 1;
      tally.throttled += 1;
      const [code, message] = THROTTLE[service] ?? ['ThrottlingException', 'Rate exceeded'];
      reply(response, protocol, code, message, 400);
      return;
    }
    const upstream = upstreams.get(service);
    if (!upstream) {
      reply(response, protocol, 'InternalFailure', `No local stand-in serves ${service}.`, 500);
      return;
    }
    const lose =
      fault?.kind === 'lose-answers' && fault.operation === call.operation && fault.count > 0;
    if (lose) fault.count -= 1;
    tally.forwarded += 1;
    await forward(incoming, body, upstream, agent, response, lose);
    options.onForwarded?.(service, call.operation);
  };

  const server: Server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      process.stderr.write(
        `aws endpoint: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let stopping: Promise<void> | undefined;

  return {
    url,
    calls,
    denials,
    counts,
    register(caller) {
      const credentials: FunctionCredentials = {
        accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
        secretAccessKey: randomBytes(30).toString('base64'),
        sessionToken: randomBytes(48).toString('base64'),
      };
      byAccessKey.set(credentials.accessKeyId, { caller, credentials });
      return credentials;
    },
    setUpstream: (service, upstream) => upstreams.set(service, upstream),
    setFault: (service, fault) => {
      if (fault) faults.set(service, fault);
      else faults.delete(service);
    },
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        agent.destroy();
      });
      return stopping;
    },
  };
}

/** The attempt number of the SDK's `amz-sdk-request: attempt=2; max=3`. */
function attemptOf(header: string | string[] | undefined): number {
  const attempt = /attempt=(\d+)/.exec(String(header ?? ''))?.[1];
  return attempt === undefined ? 1 : Number(attempt);
}

/** The `invocation` of a call from its X-Amzn-Trace-Id header (`Root=1-…;…`), if it has one. */
function invocationOf(header: string | string[] | undefined): { invocation?: string } {
  const root = /Root=([^;]+)/.exec(String(header ?? ''))?.[1];
  return root === undefined ? {} : { invocation: root };
}

type Protocol = 'json' | 'query';

function protocolOf(service: string, incoming: IncomingMessage): Protocol {
  return incoming.headers['x-amz-target'] || service !== 'ses' ? 'json' : 'query';
}

const THROTTLE: Record<string, [string, string]> = {
  dynamodb: [
    'ProvisionedThroughputExceededException',
    'The level of configured provisioned throughput for the table was exceeded.',
  ],
  ssm: ['ThrottlingException', 'Rate exceeded'],
  ses: ['Throttling', 'Maximum sending rate exceeded.'],
  sqs: ['ThrottlingException', 'Rate exceeded'],
  events: ['ThrottlingException', 'Rate exceeded'],
};

/** An error answer in the service's protocol, as the SDK parses it. */
function reply(
  response: ServerResponse,
  protocol: Protocol,
  code: string,
  message: string,
  status: number,
): void {
  const requestId = randomBytes(16).toString('hex');
  if (protocol === 'query') {
    const escapeXml = (text: string) =>
      text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const shortCode = code === 'AccessDeniedException' ? 'AccessDenied' : code;
    response
      .writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId })
      .end(
        `<ErrorResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><Error><Type>Sender</Type><Code>${shortCode}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      );
    return;
  }
  response
    .writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-requestid': requestId,
      'x-amzn-errortype': code,
    })
    .end(JSON.stringify({ __type: code, message }));
}

/** Whether the request's SigV4 signature is the one the caller's secret produces. */
/**
 * Signers per caller, region and service. A signer keeps the signing key it derived for a day,
 * as the callers' SDKs do; a new one per request would derive it again every time.
 */
const signers = new WeakMap<FunctionCredentials, Map<string, SignatureV4>>();

function signerFor(credentials: FunctionCredentials, region: string, service: string): SignatureV4 {
  let byScope = signers.get(credentials);
  if (!byScope) {
    byScope = new Map();
    signers.set(credentials, byScope);
  }
  const key = `${region}/${service}`;
  let signer = byScope.get(key);
  if (!signer) {
    signer = new SignatureV4({
      credentials: {
        accessKeyId: credentials.accessKeyId,
        secretAccessKey: credentials.secretAccessKey,
        sessionToken: credentials.sessionToken,
      },
      region,
      service,
      sha256: Sha256,
      uriEscapePath: service !== 's3',
    });
    byScope.set(key, signer);
  }
  return signer;
}

async function signatureMatches(
  incoming: IncomingMessage,
  body: Buffer,
  scope: RegExpExecArray,
  credentials: FunctionCredentials,
): Promise<boolean> {
  const [, , date, region, service, signedHeaders, signature] = scope;
  const amzDate = String(incoming.headers['x-amz-date'] ?? '');
  const stamp = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!stamp || !amzDate.startsWith(date ?? '-')) return false;
  const signingDate = new Date(
    Date.UTC(+stamp[1]!, +stamp[2]! - 1, +stamp[3]!, +stamp[4]!, +stamp[5]!, +stamp[6]!),
  );
  const url = new URL(incoming.url ?? '/', 'http://placeholder');
  const headers: Record<string, string> = {};
  for (const name of (signedHeaders ?? '').split(';')) {
    const value = incoming.headers[name];
    if (value === undefined) return false;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const existing = query[key];
    query[key] =
      existing === undefined
        ? value
        : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  const signer = signerFor(credentials, region ?? LOCAL_REGION, service ?? '');
  const signed = await signer.sign(
    {
      method: incoming.method ?? 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      path: url.pathname,
      query,
      headers,
      body,
    },
    { signingDate },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
  return expected === signature;
}

/** Forwards the call to the stand-in and relays its answer (or drops it, to lose it). */
function forward(
  incoming: IncomingMessage,
  body: Buffer,
  upstream: string,
  agent: Agent,
  response: ServerResponse,
  loseAnswer: boolean,
): Promise<void> {
  const target = new URL(incoming.url ?? '/', upstream);
  const headers = {
    ...incoming.headers,
    host: target.host,
    // Where the caller called, for a stand-in that answers with its own URLs (SQS's
    // queue URLs must lead back here, not around the IAM check).
    'x-forwarded-host': incoming.headers.host ?? '',
    'content-length': String(body.length),
  };
  // A lost answer needs the HTTP hop: the stand-in answers a socket the endpoint then drops.
  const local = loseAnswer ? undefined : inProcessUpstream(upstream);
  if (local) {
    return local(
      { method: incoming.method ?? 'POST', url: incoming.url ?? '/', headers, body },
      response,
    );
  }
  return new Promise((resolve) => {
    const outgoing = httpRequest(
      target,
      {
        method: incoming.method,
        headers,
        agent,
        timeout: 30_000,
      },
      (answer) => {
        if (loseAnswer) {
          answer.resume();
          answer.on('end', () => {
            incoming.socket.destroy();
            resolve();
          });
          return;
        }
        const headers = { ...answer.headers };
        delete headers.connection;
        delete headers['keep-alive'];
        delete headers['transfer-encoding'];
        response.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(response);
        answer.on('end', () => resolve());
        answer.on('error', () => {
          response.destroy();
          resolve();
        });
      },
    );
    // A stand-in that is stopped looks, to the caller, like a service that went away.
    outgoing.on('error', () => {
      incoming.socket.destroy();
      resolve();
    });
    outgoing.on('timeout', () => outgoing.destroy());
    outgoing.end(body);
  });
}
