/**
 * The warm-overhead measurement, run in its own process (bench/warm.ts forks it) so that the
 * handlers' log lines go to a pipe, as on Lambda, instead of the benchmark's terminal, and so
 * that the environment the handlers read is set before their bundles load.
 *
 * Each scenario calls a deployed bundle's handler in-process with an API Gateway REST proxy
 * event, and right next to it a bare SDK call doing the same DynamoDB requests with the
 * functions' client configuration; both are timed the same way, alternately.
 */

import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { proxyEvent as gatewayEvent } from '../infra/local/cloud/api-gateway.ts';
import { INDEX, KEY, TTL_ATTRIBUTE } from '../shared/adapters/store/table-design.ts';
import { hashToken } from '../shared/domain/tokens.ts';
import { subscriberItem } from './dynamo.ts';
import { benchEmail, benchSettings, kilobyteSubscriber, storedRecord } from './fixtures.ts';
import { median, percentile, ratio } from './stats.ts';

/** What the parent hands over. */
export interface WarmConfig {
  /** Route name → bundle file. */
  readonly bundles: Readonly<Record<string, string>>;
  /** bench/warm-sdk.ts bundled like the functions: the bare side's SDK. */
  readonly sdkBundle: string;
  readonly table: string;
  readonly apiKey: string;
  /** A confirmed subscriber (keyless subscribe finds it and changes nothing). */
  readonly confirmedEmail: string;
  /** Live raw tokens for the two link pages. */
  readonly confirmToken: string;
  readonly unsubscribeToken: string;
  readonly warmUp: number;
  readonly repetitions: number;
  /** Run only the scenarios whose name starts with this (for profiling one of them). */
  readonly only?: string;
}

/** Timings of one scenario. */
export interface WarmResult {
  readonly scenario: string;
  readonly route: string;
  /** DynamoDB requests both sides make. */
  readonly requests: string;
  readonly handlerMedianMs: number;
  readonly handlerP99Ms: number;
  readonly bareMedianMs: number;
  readonly bareP99Ms: number;
  readonly medianRatio: number;
  readonly p99Ratio: number;
}

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

interface Scenario {
  readonly name: string;
  readonly route: string;
  readonly requests: string;
  /** Untimed preparation before each call of either side (e.g. put back a deleted item). */
  readonly setup?: (round: number) => Promise<void>;
  readonly event: (round: number) => APIGatewayProxyEvent;
  /** The same DynamoDB work without the handler; none for a route that does none. */
  readonly bare?: (round: number) => Promise<void>;
  /** Instead of bare SDK calls: the same handler with this other event (a like-for-like race). */
  readonly versus?: (round: number) => APIGatewayProxyEvent;
  /** Status the handler must answer with. */
  readonly status?: number;
}

const STAGE = 'api';
const BASE = '/newsletter/v1';

/** An API Gateway REST event as the local cloud's gateway builds it from a request. */
function proxyEvent(
  method: 'GET' | 'POST',
  path: string,
  options: { query?: Record<string, string>; json?: unknown; sourceIp?: string } = {},
): APIGatewayProxyEvent {
  const request = new IncomingMessage(new Socket());
  const query = new URLSearchParams(options.query ?? {}).toString();
  request.method = method;
  request.url = `/${STAGE}${BASE}${path}${query ? `?${query}` : ''}`;
  request.httpVersion = '1.1';
  const headers: Record<string, string> = {
    host: 'news.example.com',
    'user-agent': 'bench',
    ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
  };
  request.headers = headers;
  request.rawHeaders = Object.entries(headers).flat();
  const body = Buffer.from(options.json === undefined ? '' : JSON.stringify(options.json));
  const resource = `${BASE}${path}`;
  const event = gatewayEvent(request, body, {
    stage: STAGE,
    resource,
    path: resource,
    url: new URL(request.url, 'http://news.example.com'),
    requestId: randomUUID(),
    binaryMediaTypes: ['multipart/form-data'],
    pathParameters: null,
  });
  if (options.sourceIp) event.requestContext.identity.sourceIp = options.sourceIp;
  return event;
}

function lambdaContext(route: string): Context {
  const fail = () => {
    throw new Error('not available in the benchmark');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `bench-${route}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:bench-${route}`,
    memoryLimitInMB: '256',
    awsRequestId: 'bench',
    logGroupName: `/bench/${route}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => 10_000,
    done: fail,
    fail,
    succeed: fail,
  };
}

async function loadHandler(file: string): Promise<Handler> {
  const module = (await import(pathToFileURL(file).href)) as { handler?: unknown };
  if (typeof module.handler !== 'function') throw new Error(`bench: ${file} has no handler`);
  return module.handler as Handler;
}

type Sdk = typeof import('./warm-sdk.ts');

function scenarios(config: WarmConfig, sdk: Sdk): Scenario[] {
  // The functions' own client factory and SDK build, so only the handler's own work differs.
  const { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } = sdk;
  const db = sdk.dynamoDocumentClient();
  const TableName = config.table;
  const settings = benchSettings();
  const subscriberKey = (email: string) => ({
    [KEY.partition]: `SUBSCRIBER#${email}`,
    [KEY.sort]: 'subscriber',
  });
  const kilobyteItem = (email: string, id: number) =>
    subscriberItem(storedRecord(kilobyteSubscriber(email, settings), settings, id));

  // The requests below are the ones shared/adapters/store/dynamo-store.ts makes for each operation.
  const getSubscriber = async (email: string) => {
    const output = await db.send(
      new GetCommand({ TableName, Key: subscriberKey(email), ConsistentRead: true }),
    );
    if (!output.Item) throw new Error(`bench: ${email} not found`);
    return output.Item;
  };
  const query = async (index: { name: string; partition: string }, kind: string, limit: number) => {
    const output = await db.send(
      new QueryCommand({
        TableName,
        IndexName: index.name,
        KeyConditionExpression: '#kind = :kind',
        ExpressionAttributeNames: { '#kind': index.partition },
        ExpressionAttributeValues: { ':kind': kind },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    if ((output.Items ?? []).length === 0) throw new Error('bench: empty listing');
  };
  const getToken = async (raw: string) => {
    const output = await db.send(
      new GetCommand({
        TableName,
        Key: { [KEY.partition]: `TOKEN#${hashToken(raw)}`, [KEY.sort]: 'token' },
        ConsistentRead: true,
      }),
    );
    if (!output.Item) throw new Error('bench: token not found');
    return String(output.Item.email);
  };
  const linkPage = (route: string, token: string): Scenario => ({
    name: `${route} (GET link)`,
    route,
    requests: 'GetItem token + GetItem subscriber',
    event: () =>
      proxyEvent(
        'GET',
        route === 'subscription-confirm' ? '/subscription/confirm' : '/subscription/unsubscribe',
        { query: { token } },
      ),
    bare: async () => {
      await getSubscriber(await getToken(token));
    },
  });
  const putBack = (email: string, id: number) => async () => {
    await db.send(new PutCommand({ TableName, Item: kilobyteItem(email, id) }));
  };
  const clientIp = (round: number, side: number) =>
    `10.${side}.${(round >> 8) & 255}.${round & 255}`;

  return [
    {
      name: 'subscribe (public form, confirmed address)',
      route: 'subscribe',
      requests: 'UpdateItem rate counter + PutItem request',
      event: (round) =>
        proxyEvent('POST', '/subscribe', {
          json: { email: config.confirmedEmail },
          sourceIp: clientIp(round, 1),
        }),
      bare: async (round) => {
        // The per-IP window counter of shared/operations/rate-limit.ts, then the request item.
        await db.send(
          new UpdateCommand({
            TableName,
            Key: { [KEY.partition]: `RATE#ip#bare-${clientIp(round, 2)}#10#1`, [KEY.sort]: 'rate' },
            UpdateExpression: 'ADD #count :one SET #expires = :expires',
            ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
            ExpressionAttributeNames: { '#count': 'request_count', '#expires': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':one': 1, ':limit': 20, ':expires': 2_000_000_000 },
          }),
        );
        await db.send(
          new PutCommand({
            TableName,
            Item: {
              [KEY.partition]: `REQUEST#bare-${round}`,
              [KEY.sort]: 'request',
              params: { email: config.confirmedEmail, send_emails: true },
              received_at: new Date().toISOString(),
              [TTL_ATTRIBUTE]: 2_000_000_000,
            },
          }),
        );
      },
    },
    {
      // Issue 14's target: the keyless answer takes as long for an address nobody has seen as
      // for a confirmed one, so its timing tells nobody who is subscribed.
      name: 'subscribe latency, confirmed address vs new address',
      route: 'subscribe',
      requests: 'the same handler, alternating',
      event: (round) =>
        proxyEvent('POST', '/subscribe', {
          json: { email: config.confirmedEmail },
          sourceIp: clientIp(round, 3),
        }),
      versus: (round) =>
        proxyEvent('POST', '/subscribe', {
          json: { email: benchEmail('latency-new', round) },
          sourceIp: clientIp(round, 4),
        }),
    },
    {
      name: 'unsubscribe (1 KB subscriber)',
      route: 'unsubscribe',
      requests: 'GetItem + PutItem (condition)',
      setup: putBack(benchEmail('warm-u', 1), 9_000_001),
      event: () =>
        proxyEvent('POST', '/unsubscribe', {
          json: { email: benchEmail('warm-u', 1), api_key: config.apiKey },
        }),
      bare: async () => {
        const item = await getSubscriber(benchEmail('warm-u', 1));
        await db.send(
          new PutCommand({
            TableName,
            Item: { ...item, status: 'U', version: Number(item.version) + 1 },
            ConditionExpression: '#version = :expected',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':expected': item.version },
          }),
        );
      },
    },
    {
      name: 'subscribers-add (1 KB subscriber)',
      route: 'subscribers-add',
      requests: 'GetItem + UpdateItem counter + PutItem (condition)',
      event: (round) =>
        proxyEvent('POST', '/subscribers/add', {
          json: {
            ...kilobyteSubscriber(benchEmail('warm-a', round), settings),
            api_key: config.apiKey,
          },
        }),
      bare: async (round) => {
        // The operation looks before it takes an id (a refused add leaves the table as it was).
        await db.send(
          new GetCommand({
            TableName,
            Key: subscriberKey(benchEmail('warm-b', round)),
            ConsistentRead: true,
          }),
        );
        const counter = await db.send(
          new UpdateCommand({
            TableName,
            Key: { [KEY.partition]: 'COUNTER#subscriber', [KEY.sort]: 'counter' },
            UpdateExpression: 'ADD next_id :one',
            ExpressionAttributeValues: { ':one': 1 },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        await db.send(
          new PutCommand({
            TableName,
            Item: kilobyteItem(benchEmail('warm-b', round), Number(counter.Attributes?.next_id)),
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': KEY.partition },
          }),
        );
      },
    },
    {
      name: 'subscribers-delete (1 KB subscriber)',
      route: 'subscribers-delete',
      requests: 'GetItem + TransactWriteItems (1 delete)',
      setup: putBack(benchEmail('warm-d', 1), 9_000_002),
      event: () =>
        proxyEvent('POST', '/subscribers/delete', {
          json: { email: benchEmail('warm-d', 1), api_key: config.apiKey },
        }),
      bare: async () => {
        const item = await getSubscriber(benchEmail('warm-d', 1));
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName,
                  Key: subscriberKey(benchEmail('warm-d', 1)),
                  ConditionExpression: '#version = :expected',
                  ExpressionAttributeNames: { '#version': 'version' },
                  ExpressionAttributeValues: { ':expected': item.version },
                },
              },
            ],
          }),
        );
      },
    },
    {
      name: 'subscribers-list',
      route: 'subscribers-list',
      requests: 'Query recent (20)',
      event: () => proxyEvent('POST', '/subscribers', { json: { api_key: config.apiKey } }),
      bare: () => query(INDEX.recent, 'subscriber', 20),
    },
    {
      name: 'newsletters (keyless)',
      route: 'newsletters',
      requests: 'Query public_recent (10)',
      event: () => proxyEvent('GET', '/newsletters'),
      bare: () => query(INDEX.publicRecent, 'newsletter', 10),
    },
    {
      name: 'newsletters (with key)',
      route: 'newsletters',
      requests: 'Query recent (10)',
      event: () => proxyEvent('GET', '/newsletters', { query: { api_key: config.apiKey } }),
      bare: () => query(INDEX.recent, 'newsletter', 10),
    },
    linkPage('subscription-confirm', config.confirmToken),
    linkPage('subscription-unsubscribe', config.unsubscribeToken),
    {
      name: 'openapi',
      route: 'openapi',
      requests: 'none',
      event: () => proxyEvent('GET', '/openapi.json'),
    },
  ];
}

async function run(config: WarmConfig): Promise<WarmResult[]> {
  const results: WarmResult[] = [];
  const handlers = new Map<string, Handler>();
  for (const [route, file] of Object.entries(config.bundles)) {
    handlers.set(route, await loadHandler(file));
  }
  const sdk = (await import(pathToFileURL(config.sdkBundle).href)) as Sdk;
  for (const scenario of scenarios(config, sdk)) {
    if (config.only && !scenario.name.startsWith(config.only)) continue;
    const handler = handlers.get(scenario.route);
    // A route the bench knows but the table no longer has (or not yet) is skipped.
    if (!handler) continue;
    const context = lambdaContext(scenario.route);
    const handlerTimes: number[] = [];
    const bareTimes: number[] = [];
    const callHandler = async (round: number): Promise<number> => {
      await scenario.setup?.(round);
      const event = scenario.event(round);
      const started = performance.now();
      const response = await handler(event, context);
      const elapsed = performance.now() - started;
      if (response.statusCode !== (scenario.status ?? 200)) {
        throw new Error(
          `bench: ${scenario.name} answered ${response.statusCode}: ${response.body}`,
        );
      }
      return elapsed;
    };
    const bare = scenario.bare;
    const versus = scenario.versus;
    const callBare = async (round: number): Promise<number> => {
      if (versus) {
        const event = versus(round);
        const started = performance.now();
        const response = await handler(event, context);
        const elapsed = performance.now() - started;
        if (response.statusCode !== (scenario.status ?? 200)) {
          throw new Error(`bench: ${scenario.name} answered ${response.statusCode}`);
        }
        return elapsed;
      }
      if (!bare) return Number.NaN;
      await scenario.setup?.(round);
      const started = performance.now();
      await bare(round);
      return performance.now() - started;
    };
    for (let round = 0; round < config.warmUp + config.repetitions; round += 1) {
      // Alternate which side goes first, so neither always follows the other.
      let handlerMs: number;
      let bareMs: number;
      if (round % 2 === 0) {
        handlerMs = await callHandler(round);
        bareMs = await callBare(round);
      } else {
        bareMs = await callBare(round);
        handlerMs = await callHandler(round);
      }
      if (round < config.warmUp) continue;
      handlerTimes.push(handlerMs);
      if (bare || versus) bareTimes.push(bareMs);
    }
    const handlerMedianMs = median(handlerTimes);
    const bareMedianMs = median(bareTimes);
    const handlerP99Ms = percentile(handlerTimes, 0.99);
    const bareP99Ms = percentile(bareTimes, 0.99);
    results.push({
      scenario: scenario.name,
      route: scenario.route,
      requests: scenario.requests,
      handlerMedianMs,
      handlerP99Ms,
      bareMedianMs,
      bareP99Ms,
      medianRatio: ratio(handlerMedianMs, bareMedianMs),
      p99Ratio: ratio(handlerP99Ms, bareP99Ms),
    });
    process.send?.({ progress: scenario.name });
  }
  return results;
}

// Without the parent there is nobody to report to: never linger as an orphan.
process.once('disconnect', () => process.exit(1));

process.once('message', (message: { config: WarmConfig }) => {
  run(message.config).then(
    (results) => process.send?.({ results }, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
});
