import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { generateApiKey } from '../../cli/admin/api-key-parameter.ts';
import { DynamoCampaignStore } from '../../shared/adapters/store/dynamo-campaign-store.ts';
import { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import { parseCampaignContent } from '../../shared/domain/campaign/campaign-content.ts';
import { newSubscriberRecord } from '../../shared/domain/decide-subscribe.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { parseSettings } from '../../shared/domain/parse-settings.ts';
import type { Settings } from '../../shared/domain/settings-schema.ts';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import type { Denial } from './cloud/aws-endpoint.ts';
import type { DeployedFunction, DeployedStack } from './cloud/deployed-stack.ts';
import { LOCAL_REGION } from './cloud/intrinsics.ts';
import type { CodeSource } from './cloud/lambda-host.ts';
import { type LocalCloud, startLocalCloud } from './cloud/local-cloud.ts';
import type { FailedDelivery } from './cloud/topic-deliveries.ts';
import { type ConsoleConfig, consoleSite } from './console-site.ts';
import { DEMO_CONTENT, DEMO_SETTINGS, DEMO_SUBSCRIBERS, demoNewsletters } from './demo-data.ts';
import { type CognitoLocal, startCognitoLocal } from './stand-ins/cognito-local.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from './stand-ins/dynamodb-local.ts';
import { type ParameterStore, startParameterStore } from './stand-ins/parameter-store.ts';
import { type SesLocal, type SesPublisher, startSesLocal } from './stand-ins/ses-local.ts';
import { type SqsLocal, startSqsLocal } from './stand-ins/sqs-local.ts';
import {
  type StrictDynamoDb,
  type StrictDynamoDbOptions,
  startStrictDynamoDb,
  strictDynamoDbFromEnv,
} from './stand-ins/strict-dynamodb.ts';
import { PROJECT_ROOT, synthesize } from './synthesize.ts';

/** What `npm start` (and the end-to-end tests) configure. */
export interface LocalStackOptions {
  /** API port (`PORT`, default 3000; 0 picks a free one). */
  readonly port: number;
  /** Mail viewer and local SES port (`MAIL_PORT`, default 8005; 0 picks a free one). */
  readonly mailPort: number;
  /**
   * Folder for DynamoDB's data, the parameters and the queues (`DATA_DIR`); undefined keeps all
   * in memory.
   */
  readonly dataDir?: string;
  /** The API key to use (`API_KEY`); default: generated once and kept with the data. */
  readonly apiKey?: string;
  /** Stage, the first path segment (default `api`). */
  readonly stage?: string;
  /** Seed demo settings and newsletters when empty (default true). */
  readonly seed?: boolean;
  /**
   * With `seed`, also a few confirmed demo subscribers, so that `newsletters send 1` mails
   * someone (default true; the test suites start without them).
   */
  readonly demoSubscribers?: boolean;
  /**
   * A cloud assembly already synthesized (the tests synthesize once per run). Without it the
   * stack is synthesized now, with `stage` and `parameterCacheSeconds`.
   */
  readonly cdkOut?: string;
  /**
   * With a `cdkOut` synthesized without bundles: the assembly whose bundles its functions run,
   * matched by logical id and entry (a test's second deployment of the same code).
   */
  readonly bundlesFrom?: string;
  /** Seconds the functions cache the key and settings, for a synth made here (default 5). */
  readonly parameterCacheSeconds?: number;
  /** Run the bundles (default) or the TypeScript sources (faster to start, for development). */
  readonly code?: CodeSource;
  /** Every line a function logs; default: stderr, prefixed with the function's name. */
  readonly onLog?: (line: string, fn: DeployedFunction) => void;
  /** Modules each function environment imports first (test observers). */
  readonly preload?: readonly string[];
  /** A failure of an event source mapping's poller; default: stderr. */
  readonly onStreamError?: (error: unknown) => void;
  /** Waits before Lambda's two retries of a failed asynchronous invocation (default 1 s, 2 s). */
  readonly asyncRetryWaitsMs?: readonly number[];
  /** Wait after a poll of the table's stream that found nothing (default 1 s; stream-mappings.ts). */
  readonly streamIdlePollMs?: number;
  /**
   * An asynchronous invocation (a topic's message, a rule's event) dropped after its function
   * failed every attempt; default: stderr.
   */
  readonly onDeliveryGaveUp?: (failure: FailedDelivery) => void;
  /** Fire the scheduled rules on their schedules (default true); off, only `cloud.fireRule`. */
  readonly runSchedules?: boolean;
  /** The clock EventBridge Scheduler fires one-time schedules by (default: the real one). */
  readonly schedulerNow?: () => Date;
  /** The clock the web ACLs' rate-based rules count by (tests move it past a window). */
  readonly webAclNow?: () => number;
  /**
   * The local SES's MaxSendRate (`SES_MAX_SEND_RATE`), enforced as SES enforces it: a send
   * beyond it in any second is refused with `Throttling`. Without it, the quota of a new
   * production account is reported (14 per second) and not enforced.
   */
  readonly sesMaxSendRate?: number;
  /**
   * The local SES's Max24HourSend (`SES_MAX_24_HOUR_SEND`), enforced as SES enforces it: a send
   * once that many were taken in the last 24 hours is refused with `Throttling` ("Daily message
   * quota exceeded"). Without it, 50,000 is reported and not enforced.
   */
  readonly sesMax24HourSend?: number;
  /** Further deployment context for the synth (`-c key=value`), e.g. `campaignWorkers`. */
  readonly context?: Readonly<Record<string, string>>;
  /**
   * A DynamoDB Local that is already running, to use instead of starting one (the test suites
   * share one JVM per run: starting one costs about 2.5 s of both cores). The stack's table gets
   * a name of its own there and is deleted at `stop()`. Not with `dataDir`.
   */
  readonly sharedDynamoDb?: string;
  /**
   * How DynamoDB behaves at its limits: by default the strict front (stand-ins/strict-dynamodb.ts)
   * stands before DynamoDB Local, with the settings of `DYNAMODB_STRICT`, `DYNAMODB_HOLD_MS`
   * and `DYNAMODB_SCALE`; `{ enabled: false }` leaves DynamoDB Local as it is.
   */
  readonly strictDynamoDb?: StrictDynamoDbOptions;
  /**
   * The built console to serve at `/` when the stack deploys none; by default the files the
   * synth staged for the stack's BucketDeployment (what a deployment puts in the bucket).
   */
  readonly consoleDir?: string;
}

/** What a stack's user may do with its DynamoDB Local: reach it, and stop it if it is its own. */
export type StackDynamoDb = Pick<DynamoDbLocal, 'endpoint' | 'dataDir' | 'stop'> &
  /** The JVM's process id when the stack started it (the benchmarks' CPU figures). */
  Partial<Pick<DynamoDbLocal, 'pid'>>;

/** The running local service. */
export interface LocalStack {
  /** `{api_root}` at the public address: the distribution, as the stack's ApiRoot output. */
  readonly apiRoot: string;
  /**
   * `{api_root}` at the API's own execute-api address, which answers only what came through
   * the distribution ([http.front-door]): for tests that call around it.
   */
  readonly executeApiRoot: string;
  readonly apiKey: string;
  readonly mailViewer: string;
  /**
   * The DynamoDB the stack runs on: the strict front before its DynamoDB Local (its own, or the
   * shared one it borrowed), or DynamoDB Local itself when the front is off.
   */
  readonly dynamo: StackDynamoDb;
  /** The strict front, when on (what it refused: `stats`). */
  readonly strictDynamoDb: StrictDynamoDb | undefined;
  readonly ses: SesLocal;
  readonly parameters: ParameterStore;
  readonly sqs: SqsLocal;
  readonly cloud: LocalCloud;
  /** The console, on the API's public origin (the distribution): `http://localhost:PORT/`. */
  readonly consoleUrl: string;
  /** The Cognito stand-in people sign in at. */
  readonly cognito: CognitoLocal;
  /** The console's user pool and app client, as `/config.json` names them. */
  readonly people: { readonly userPoolId: string; readonly clientId: string };
  /** Where the local SES publishes its events (the cloud's topics); for a restarted SES. */
  readonly sesPublisher: SesPublisher;
  readonly tableName: string;
  /** What the admin CLI's `--local` needs to reach this service (LOCAL_ENDPOINTS_FILE). */
  readonly endpoints: LocalEndpoints;
  /** Calls a function made that its role does not allow (each also failed as on AWS). */
  readonly denials: readonly Denial[];
  /** Stops everything, Java included; safe to call twice. */
  stop(): Promise<void>;
}

/** File in DATA_DIR where a running `npm start` says where its stand-ins listen. */
export const LOCAL_ENDPOINTS_FILE = 'local-endpoints.json';

/** The content of LOCAL_ENDPOINTS_FILE. */
export interface LocalEndpoints {
  readonly dynamodb: string;
  readonly ssm: string;
  readonly ses: string;
  /** The mailer's dead-letter queue, at the SQS stand-in. */
  readonly mail_dead_letters?: string;
  /** The campaign engine's plans queue, at the SQS stand-in: where the CLI starts a send. */
  readonly campaign_queue?: string;
  /** The Cognito stand-in and the console's user pool: where `people` adds and removes. */
  readonly people?: { readonly endpoint: string; readonly user_pool_id: string };
  /** The local EventBridge Scheduler and what `newsletters schedule` creates schedules with. */
  readonly scheduler?: {
    readonly endpoint: string;
    readonly group: string;
    readonly target: string;
    readonly role: string;
    /** ARN of the schedules' dead-letter queue (their DeadLetterConfig). */
    readonly dead_letters: string;
  };
  readonly table: string;
  readonly api_root: string;
}

/** The local SES accepts mail for this identity; the demo sender belongs to it. */
export const LOCAL_SENDER_IDENTITY = 'example.com';

/**
 * Starts the whole service locally: DynamoDB Local, the local SES with its viewer, the
 * parameter-store stand-in, then the synthesized stack on them (see cloud/local-cloud.ts):
 * every function as deployed, with its own permissions, behind the API the template defines.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const stage = options.stage ?? 'api';
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const started: { stop(): Promise<void> }[] = [];
  const stopAll = async (): Promise<void> => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
    started.length = 0;
  };
  try {
    const local = options.sharedDynamoDb
      ? sharedDynamoDb(options.sharedDynamoDb)
      : await startDynamoDbLocal(dataDir ? { dataDir: join(dataDir, 'dynamodb') } : {});
    if (options.sharedDynamoDb && dataDir) {
      throw new Error('a shared DynamoDB Local keeps no data folder: choose one of the two');
    }
    started.push(local);
    // Everything the stack does with DynamoDB goes through the front: the functions (through
    // the AWS endpoint, in process), the seed, the admin CLI's --local and the tests' clients.
    const strict = { ...strictDynamoDbFromEnv(process.env), ...options.strictDynamoDb };
    const front = strict.enabled
      ? await startStrictDynamoDb({ ...strict, upstream: local.endpoint })
      : undefined;
    if (front) started.push(front);
    const dynamo: StackDynamoDb = front
      ? {
          endpoint: front.endpoint,
          dataDir: local.dataDir,
          ...(local.pid === undefined ? {} : { pid: local.pid }),
          stop: async () => {
            await front.stop();
            await local.stop();
          },
        }
      : local;
    // SES publishes its events to the stack's topics, which exist once the cloud runs.
    let cloud: LocalCloud | undefined;
    const sesPublisher: SesPublisher = (notification) => cloud?.publishSesEvent(notification);
    const ses = await startSesLocal({ port: options.mailPort, publish: sesPublisher });
    started.push(ses);
    if (options.sesMaxSendRate !== undefined || options.sesMax24HourSend !== undefined) {
      ses.setQuota({
        ...(options.sesMaxSendRate !== undefined ? { maxSendRate: options.sesMaxSendRate } : {}),
        ...(options.sesMax24HourSend !== undefined
          ? { max24HourSend: options.sesMax24HourSend }
          : {}),
      });
      ses.enforceQuota(true);
    }
    const parameters = await startParameterStore(
      dataDir ? { file: join(dataDir, 'parameters.json') } : {},
    );
    started.push(parameters);
    // The stack's queues (fauxqs). With a data folder they keep their messages across a
    // restart, as queues do on AWS: work queued when npm start stopped is still there.
    const sqs = await startSqsLocal(dataDir ? { dataDir: join(dataDir, 'sqs') } : {});
    started.push(sqs);
    // The console's people, kept with the data as the pool keeps them on AWS.
    const cognito = await startCognitoLocal(dataDir ? { dataDir: join(dataDir, 'cognito') } : {});
    started.push(cognito);

    const code = options.code ?? 'bundle';
    let cdkOut = options.cdkOut;
    if (!cdkOut) {
      const scratch = dataDir ?? (await mkdtemp(join(tmpdir(), 'newsletter-synth-')));
      if (!dataDir) started.push({ stop: () => rm(scratch, { recursive: true, force: true }) });
      cdkOut = await synthesize({
        outdir: join(scratch, 'cdk.out'),
        stage,
        senderIdentity: LOCAL_SENDER_IDENTITY,
        parameterCacheSeconds: options.parameterCacheSeconds ?? 5,
        bundle: code === 'bundle',
        ...(options.context ? { context: options.context } : {}),
      });
    }

    const apiKey =
      options.apiKey || parameters.get(ENV_DEFAULTS.apiKeyParameter)?.value || generateApiKey();
    parameters.put(ENV_DEFAULTS.apiKeyParameter, apiKey, 'SecureString');
    const settingsParameter = parameters.get(ENV_DEFAULTS.settingsParameter);
    if (settingsParameter) {
      // A bad setting stops the start with a message naming it, not a 500 per request later.
      parseSettings(settingsParameter.value);
    } else if (options.seed !== false) {
      parameters.put(ENV_DEFAULTS.settingsParameter, JSON.stringify(DEMO_SETTINGS, null, 2));
    }

    const denials: Denial[] = [];
    cloud = await startLocalCloud({
      cdkOut,
      ...(options.bundlesFrom === undefined ? {} : { bundlesFrom: options.bundlesFrom }),
      code,
      projectRoot: PROJECT_ROOT,
      upstreams: {
        dynamodb: dynamo.endpoint,
        ssm: parameters.endpoint,
        ses: ses.endpoint,
        sqs: sqs.endpoint,
        'cognito-idp': cognito.endpoint,
      },
      site: (deployed) => {
        // What synth staged for the stack's BucketDeployment: the files a deployment serves.
        const files = deployed.siteFiles() ?? options.consoleDir;
        if (!files) throw new Error('the stack deploys no console, and none was given');
        const site = consoleSite(files, consoleConfigOf(deployed, stage, cognito));
        return async (method, url) => site(method, url);
      },
      isSecureParameter: (name) => parameters.get(name)?.type === 'SecureString',
      apiPort: options.port,
      onLog:
        options.onLog ??
        ((line, fn) =>
          process.stderr.write(`${fn.logicalId.replace(/[0-9A-F]{8}$/, '')} ${line}\n`)),
      onDenied: (denial) => {
        denials.push(denial);
        process.stderr.write(`ACCESS DENIED (as AWS would): ${denial.message}\n`);
      },
      ...(options.preload ? { preload: options.preload } : {}),
      onStreamError:
        options.onStreamError ??
        ((error) => process.stderr.write(`event source mapping: ${String(error)}\n`)),
      onDeliveryGaveUp:
        options.onDeliveryGaveUp ??
        ((failure) =>
          process.stderr.write(
            `event from ${failure.sourceArn} to ${failure.functionLogicalId} dropped after ${failure.attempts} attempts: ${failure.error}\n`,
          )),
      ...(options.asyncRetryWaitsMs ? { asyncRetryWaitsMs: options.asyncRetryWaitsMs } : {}),
      ...(options.streamIdlePollMs ? { streamIdlePollMs: options.streamIdlePollMs } : {}),
      ...(options.runSchedules === undefined ? {} : { runSchedules: options.runSchedules }),
      ...(options.schedulerNow ? { schedulerNow: options.schedulerNow } : {}),
      ...(options.webAclNow ? { webAclNow: options.webAclNow } : {}),
      // Kept with the data, so a schedule survives a restart (and fires late after downtime).
      ...(dataDir ? { schedulesFile: join(dataDir, 'schedules.json') } : {}),
      ...(options.sharedDynamoDb ? { tableSuffix: randomBytes(6).toString('hex') } : {}),
    });
    // Parts stop in reverse: the cloud (its stream readers) before its table is deleted.
    if (options.sharedDynamoDb) started.push(tableRemover(local.endpoint, cloud.tableName));
    started.push(cloud);

    if (options.seed !== false) {
      const client = new DynamoDBClient({
        endpoint: dynamo.endpoint,
        region: LOCAL_REGION,
        credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
      });
      const document = DynamoDBDocumentClient.from(client);
      const store = new DynamoStore(document, cloud.tableName);
      if ((await store.recentNewsletterIssues(1, true)).length === 0) {
        await seedDemoData(
          store,
          new DynamoCampaignStore(document, cloud.tableName),
          parseSettings(parameters.get(ENV_DEFAULTS.settingsParameter)?.value ?? '{}'),
          options.demoSubscribers !== false,
        );
      }
      client.destroy();
    }

    if (!cloud.api || !cloud.distribution)
      throw new Error('the stack has no REST API behind a distribution');
    const apiRoot = `${cloud.distribution.url}${stage}/newsletter/v1`;
    const executeApiRoot = `${cloud.api.stageUrl}/newsletter/v1`;
    const people = consoleConfigOf(cloud.stack, stage, cognito).cognito;
    // The admin CLI's --local reads these to find the stand-ins' ports, picked free at start.
    const endpoints: LocalEndpoints = {
      dynamodb: dynamo.endpoint,
      ssm: parameters.endpoint,
      ses: ses.endpoint,
      ...optionalQueue('mail_dead_letters', queueAtStandIn(cloud, sqs, /MailerDeadLetters/)),
      ...optionalQueue('campaign_queue', queueAtStandIn(cloud, sqs, /CampaignsPlans[0-9A-F]/)),
      ...schedulerOf(cloud),
      people: { endpoint: cognito.endpoint, user_pool_id: people.userPoolId },
      table: cloud.tableName,
      api_root: apiRoot,
    };
    if (dataDir) {
      await writeFile(
        join(dataDir, LOCAL_ENDPOINTS_FILE),
        `${JSON.stringify(endpoints, null, 2)}\n`,
      );
      started.push({ stop: () => rm(join(dataDir, LOCAL_ENDPOINTS_FILE), { force: true }) });
    }
    return {
      apiRoot,
      executeApiRoot,
      apiKey,
      mailViewer: ses.viewerUrl,
      dynamo,
      strictDynamoDb: front,
      ses,
      parameters,
      sqs,
      cloud,
      consoleUrl: cloud.distribution.url,
      cognito,
      people: { userPoolId: people.userPoolId, clientId: people.clientId },
      sesPublisher,
      tableName: cloud.tableName,
      endpoints,
      denials,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * The demo data of a first start: the demo issues (issue 1 a draft with content, through the
 * same validation as `newsletters create`), and the demo subscribers.
 */
async function seedDemoData(
  store: DynamoStore,
  campaigns: DynamoCampaignStore,
  settings: Settings,
  withSubscribers: boolean,
): Promise<void> {
  const now = new Date();
  for (const issue of demoNewsletters(now)) {
    const id = await store.nextId('newsletter');
    if (id !== 1) {
      await store.putNewsletterIssue({ ...issue, id });
      continue;
    }
    const content = parseCampaignContent(
      { subject: issue.subject, html: DEMO_CONTENT.html, lists: [...DEMO_CONTENT.lists] },
      settings,
    );
    if (isNewsletterError(content)) throw new Error(`demo issue: ${content.message}`);
    await campaigns.createIssue(
      {
        id,
        subject: issue.subject,
        created: issue.created,
        private: false,
        lists: [...DEMO_CONTENT.lists],
      },
      { html: content.content.html, text: content.content.text, text_derived: true },
    );
  }
  if (!withSubscribers) return;
  for (const person of DEMO_SUBSCRIBERS) {
    const record = newSubscriberRecord(
      person.email,
      { name: person.name, lists: [...person.lists], profile: { ...person.profile } },
      'C',
      settings,
      now,
      { preassigned: false },
    );
    await store.createSubscriber({
      ...record,
      id: await store.nextId('subscriber'),
      version: 1,
      consent: { channel: 'cli', subscribed: { at: now.toISOString() } },
    });
  }
}

/** What the console's `/config.json` answers on the local origin. */
function consoleConfigOf(
  stack: DeployedStack,
  stage: string,
  cognito: CognitoLocal,
): ConsoleConfig {
  const userPoolId = stack.output('ConsoleUserPoolId');
  const clientId = stack.output('ConsoleUserPoolClientId');
  if (!userPoolId || !clientId) throw new Error('the stack has no console user pool outputs');
  return {
    apiBase: `/${stage}/newsletter/v2`,
    // cognito-local answers CORS for any origin, so the browser calls it directly, as it calls
    // Cognito's own endpoint deployed.
    cognito: { endpoint: cognito.endpoint, region: LOCAL_REGION, userPoolId, clientId },
  };
}

/** A DynamoDB Local someone else started and stops: this stack only borrows it. */
function sharedDynamoDb(endpoint: string): StackDynamoDb {
  return { endpoint, dataDir: undefined, stop: async () => {} };
}

/** Deletes the stack's table from a shared DynamoDB Local when the stack stops. */
function tableRemover(endpoint: string, tableName: string): { stop(): Promise<void> } {
  return {
    stop: async () => {
      if (!tableName) return;
      const client = new DynamoDBClient({
        endpoint,
        region: LOCAL_REGION,
        credentials: { accessKeyId: 'cloudformation', secretAccessKey: 'local' },
      });
      try {
        await client.send(new DeleteTableCommand({ TableName: tableName }));
      } finally {
        client.destroy();
      }
    },
  };
}

/** URL at the SQS stand-in of the stack's queue whose name matches, for the admin CLI. */
function queueAtStandIn(cloud: LocalCloud, sqs: SqsLocal, name: RegExp): string | undefined {
  const queue = [...cloud.queues.values()].find((entry) => name.test(entry.name));
  return queue ? `${sqs.endpoint}/${queue.url.split('/').slice(-2).join('/')}` : undefined;
}

function optionalQueue<K extends string>(
  key: K,
  url: string | undefined,
): Partial<Record<K, string>> {
  return url === undefined ? {} : ({ [key]: url } as Record<K, string>);
}

/** The local Scheduler and the stack's CampaignSchedule* outputs, when the stack has them. */
function schedulerOf(cloud: LocalCloud): Pick<LocalEndpoints, 'scheduler'> {
  const group = cloud.stack.output('CampaignScheduleGroup');
  const target = cloud.stack.output('CampaignScheduleTarget');
  const role = cloud.stack.output('CampaignScheduleRole');
  const deadLetters = cloud.stack.output('CampaignScheduleDeadLetters');
  if (!cloud.scheduler || !group || !target || !role || !deadLetters) return {};
  return {
    scheduler: { endpoint: cloud.scheduler.url, group, target, role, dead_letters: deadLetters },
  };
}
