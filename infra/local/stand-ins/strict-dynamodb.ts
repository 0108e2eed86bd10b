/**
 * A front for DynamoDB Local that behaves as DynamoDB does under contention and at its limits,
 * which DynamoDB Local alone never shows (it serialises transactions and never throttles):
 *
 * - a TransactWriteItems holds the items it names for a while (default 20 ms, and its answer
 *   comes when the hold ends): another transaction naming one of them meanwhile is cancelled
 *   with a `TransactionConflict` reason, a PutItem, UpdateItem or DeleteItem on one gets
 *   TransactionConflictException, a BatchWriteItem leaves it unprocessed, and a
 *   TransactGetItems meeting a write in progress is cancelled (dynamodb-holds.ts);
 * - each partition key value, of the table and of each global secondary index, takes at most
 *   1,000 write and 3,000 read units a second (divided by a scale factor), and a request beyond
 *   it is throttled as DynamoDB throttles an on-demand table; a write is refused when any index
 *   partition it writes is over its limit (dynamodb-partitions.ts, strict-dynamodb-requests.ts).
 *
 * Item, request and transaction size limits are DynamoDB Local's own: it already refuses what
 * DynamoDB refuses there (test/local/strict-dynamodb.test.ts shows each). Everything else, the
 * streams API included, passes through unchanged. It runs as a loopback HTTP server (the test
 * suites' SDK clients, the admin CLI) and, for the local cloud's AWS endpoint in the same
 * process, as a function call (in-process-upstreams.ts), so the endpoint's hop stays one.
 */
import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { crc32 } from 'node:zlib';
import { type ForwardedRequest, serveInProcess } from '../cloud/in-process-upstreams.ts';
import { LOCAL_HOST } from '../local-host.ts';
import { readBody } from '../read-body.ts';
import type { Answer } from './dynamodb-answers.ts';
import { ItemHolds } from './dynamodb-holds.ts';
import { ItemBook, schemaOf, type TableSchema } from './dynamodb-items.ts';
import type { DynamoDbLocal } from './dynamodb-local.ts';
import { PARTITION_LIMITS, PartitionThroughput } from './dynamodb-partitions.ts';
import { handleOperation, type Strictness } from './strict-dynamodb-requests.ts';

/** How strict the front is. */
export interface StrictDynamoDbOptions {
  /** Off: every call reaches DynamoDB Local unchanged, to show the difference (default on). */
  readonly enabled?: boolean;
  /** How long a TransactWriteItems holds its items, in ms (default 20). */
  readonly holdMs?: number;
  /** Divides the partition limits, and only them (default 1: DynamoDB's own). */
  readonly scale?: number;
  /** The clock of the partition buckets and holds, in ms (tests inject one). */
  readonly now?: () => number;
  /** Waits out what is left of a hold (tests inject one to end holds when they choose). */
  readonly wait?: (ms: number) => Promise<void>;
}

/** The settings in effect. */
export interface StrictDynamoDbSettings {
  readonly enabled: boolean;
  readonly holdMs: number;
  readonly scale: number;
}

/** What the front did, for tests and bench reports. */
export interface StrictDynamoDbStats {
  /** Single-item writes refused with TransactionConflictException. */
  conflicts: number;
  /** Transactions cancelled with a TransactionConflict reason. */
  cancelledForConflict: number;
  /** Requests or transaction items refused for their partition's throughput. */
  throttledWrites: number;
  throttledReads: number;
  /** Batch items left unprocessed (a conflict or a throttled partition). */
  unprocessed: number;
  /** Reads of an item's index keys the front made because it had not seen the item written. */
  keyReads: number;
}

/** A running front. */
export interface StrictDynamoDb {
  /** Where clients call it (`endpoint` / `AWS_ENDPOINT_URL_DYNAMODB`). */
  readonly endpoint: string;
  readonly settings: StrictDynamoDbSettings;
  readonly stats: StrictDynamoDbStats;
  /** Sends the calls to another DynamoDB Local from now on (one restarted elsewhere). */
  setUpstream(url: string): void;
  /** Closes the front (not DynamoDB Local); safe to call twice. */
  stop(): Promise<void>;
}

/** The defaults: DynamoDB's limits, a 20 ms transaction. */
export const STRICT_DEFAULTS: StrictDynamoDbSettings = { enabled: true, holdMs: 20, scale: 1 };

/**
 * The settings `npm start`, the benches and the test runs take from the environment:
 * `DYNAMODB_STRICT=off` turns the front off, `DYNAMODB_HOLD_MS` and `DYNAMODB_SCALE` set the
 * hold and the scale factor.
 * @throws Error naming the variable when a value is not understood.
 */
export function strictDynamoDbFromEnv(env: NodeJS.ProcessEnv): StrictDynamoDbSettings {
  const strict = (env.DYNAMODB_STRICT ?? 'on').toLowerCase();
  if (!['on', 'off', '1', '0', 'true', 'false'].includes(strict)) {
    throw new Error(`DYNAMODB_STRICT must be on or off, not ${env.DYNAMODB_STRICT}`);
  }
  const number = (name: string, fallback: number, least: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value < least) {
      throw new Error(`${name} must be a number of at least ${least}, not ${text}`);
    }
    return value;
  };
  return {
    enabled: !['off', '0', 'false'].includes(strict),
    holdMs: number('DYNAMODB_HOLD_MS', STRICT_DEFAULTS.holdMs, 0),
    scale: number('DYNAMODB_SCALE', STRICT_DEFAULTS.scale, Number.MIN_VALUE),
  };
}

/** One line saying what is in effect, for `npm start` and the benches. */
export function describeStrictDynamoDb(settings: StrictDynamoDbSettings): string {
  if (!settings.enabled) return 'off (DYNAMODB_STRICT=off): DynamoDB Local as it is';
  const per = (limit: number) =>
    (limit / settings.scale).toLocaleString('en-US', { maximumFractionDigits: 1 });
  return `transactions hold their items ${settings.holdMs} ms; each partition key value takes ${per(PARTITION_LIMITS.write)} WCU and ${per(PARTITION_LIMITS.read)} RCU a second (scale ${settings.scale})`;
}

const MAX_BODY_BYTES = 20 * 1024 * 1024;
const TARGET_PREFIX = 'DynamoDB_20120810.';

/** An answer from DynamoDB Local, read whole. */
export interface Upstream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * Starts the front on a free loopback port, in front of DynamoDB Local at `upstream`.
 */
export async function startStrictDynamoDb(
  options: StrictDynamoDbOptions & { readonly upstream: string },
): Promise<StrictDynamoDb> {
  const settings: StrictDynamoDbSettings = {
    enabled: options.enabled ?? STRICT_DEFAULTS.enabled,
    holdMs: options.holdMs ?? STRICT_DEFAULTS.holdMs,
    scale: options.scale ?? STRICT_DEFAULTS.scale,
  };
  let upstream = options.upstream;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const now = options.now ?? (() => performance.now());
  const stats: StrictDynamoDbStats = {
    conflicts: 0,
    cancelledForConflict: 0,
    throttledWrites: 0,
    throttledReads: 0,
    unprocessed: 0,
    keyReads: 0,
  };
  const schemas = new Map<string, Promise<TableSchema | undefined>>();
  const books = new Map<string, ItemBook>();
  // Tables created through the front: every item in them was written through it.
  const createdHere = new Set<string>();
  const throughput = new PartitionThroughput(settings.scale, now);

  const call = (headers: IncomingHttpHeaders, body: Buffer | string): Promise<Upstream> =>
    new Promise((resolve, reject) => {
      const payload = typeof body === 'string' ? Buffer.from(body) : body;
      const outgoing = httpRequest(
        upstream,
        {
          method: 'POST',
          agent,
          timeout: 30_000,
          headers: {
            ...headers,
            host: new URL(upstream).host,
            'content-length': String(payload.length),
          },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            resolve({
              status: answer.statusCode ?? 502,
              headers: answer.headers,
              body: Buffer.concat(chunks),
            }),
          );
          answer.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.on('timeout', () => outgoing.destroy(new Error('DynamoDB Local did not answer')));
      outgoing.end(payload);
    });

  // The front's own calls (DescribeTable, an item's index keys): DynamoDB Local wants a
  // SigV4-shaped authorization, not a valid one.
  const ownCall = (operation: string, input: unknown): Promise<Upstream> =>
    call(
      {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `${TARGET_PREFIX}${operation}`,
        authorization:
          'AWS4-HMAC-SHA256 Credential=strict/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      JSON.stringify(input),
    );

  const schema = (table: string): Promise<TableSchema | undefined> => {
    let known = schemas.get(table);
    if (!known) {
      known = ownCall('DescribeTable', { TableName: table }).then((answer) =>
        answer.status === 200 ? schemaOf(JSON.parse(answer.body.toString()).Table) : undefined,
      );
      schemas.set(table, known);
      // A table that does not exist yet may be created later.
      void known.then((found) => {
        if (!found && schemas.get(table) === known) schemas.delete(table);
      });
    }
    return known;
  };

  const book = (table: string): ItemBook => {
    let found = books.get(table);
    if (!found) {
      found = new ItemBook(createdHere.has(table));
      books.set(table, found);
    }
    return found;
  };

  const strictness: Strictness = {
    settings,
    stats,
    holds: new ItemHolds(),
    throughput,
    now,
    wait: options.wait ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    schema,
    book,
    ownCall,
  };

  const forget = (table: string): void => {
    schemas.delete(table);
    books.delete(table);
  };

  const handle = async (request: ForwardedRequest, response: ServerResponse): Promise<void> => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = target.startsWith(TARGET_PREFIX)
      ? target.slice(TARGET_PREFIX.length)
      : undefined;
    const forward = (body: Buffer | string = request.body) => call(request.headers, body);
    let answer: Upstream | Answer;
    try {
      if (!settings.enabled || operation === undefined) {
        answer = await forward();
      } else if (['CreateTable', 'DeleteTable', 'UpdateTable'].includes(operation)) {
        answer = await forward();
        const table = tableNameOf(request.body);
        if (answer.status === 200 && table !== undefined) {
          forget(table);
          if (operation === 'CreateTable') createdHere.add(table);
          if (operation === 'DeleteTable') {
            createdHere.delete(table);
            throughput.forgetTable(table);
          }
        }
      } else {
        answer = await handleOperation(strictness, operation, request.body, forward);
      }
    } catch {
      // DynamoDB Local is gone (stopped, restarting): to the caller, a service that went away.
      response.destroy();
      return;
    }
    reply(response, answer);
  };

  const server: Server = createServer((incoming, response) => {
    void readBody(incoming, MAX_BODY_BYTES).then((body) => {
      if (body === undefined) {
        response.writeHead(413).end();
        return;
      }
      return handle(
        {
          method: incoming.method ?? 'POST',
          url: incoming.url ?? '/',
          headers: incoming.headers,
          body,
        },
        response,
      );
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOCAL_HOST, () => resolve());
  });
  const endpoint = `http://${LOCAL_HOST}:${(server.address() as AddressInfo).port}`;
  const stopServing = serveInProcess(endpoint, handle);
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    settings,
    stats,
    setUpstream: (url) => {
      upstream = url;
    },
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        stopServing();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        agent.destroy();
      });
      return stopping;
    },
  };
}

/**
 * A DynamoDB Local seen through the front (unless the settings turn it off): its endpoint is
 * the front's, and stopping it stops both. For the benches that start DynamoDB Local alone.
 */
export async function behindStrictFront(
  local: DynamoDbLocal,
  settings: StrictDynamoDbOptions,
): Promise<DynamoDbLocal> {
  if (settings.enabled === false) return local;
  const front = await startStrictDynamoDb({ ...settings, upstream: local.endpoint });
  return {
    ...local,
    endpoint: front.endpoint,
    stop: async () => {
      await front.stop();
      await local.stop();
    },
  };
}

function tableNameOf(body: Buffer): string | undefined {
  try {
    const name = (JSON.parse(body.toString()) as { TableName?: unknown }).TableName;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date'];

/** Sends DynamoDB Local's answer as it came, or the front's own in DynamoDB's protocol. */
function reply(response: ServerResponse, answer: Upstream | Answer): void {
  if (Buffer.isBuffer(answer.body)) {
    const headers = { ...(answer as Upstream).headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    response.writeHead(answer.status, headers).end(answer.body);
    return;
  }
  const body = Buffer.from(JSON.stringify(answer.body));
  response
    .writeHead(answer.status, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-requestid': randomUUID(),
      // DynamoDB sends the body's CRC32 with a successful answer; its errors carry none.
      ...(answer.status === 200 ? { 'x-amz-crc32': String(crc32(body)) } : {}),
    })
    .end(body);
}
