/**
 * Amazon SQS for the local cloud: the npm emulator `fauxqs` (MIT), which serves SQS's JSON
 * protocol as today's SDK speaks it, with visibility timeouts, long polling, per-queue and
 * per-message delays, redrive to a dead-letter queue after `maxReceiveCount` receives, batch
 * actions with their validations, FIFO queues, and, given a folder, its state in SQLite, so
 * queued work survives a restart as it survives on AWS.
 *
 * What this module adds around it:
 * - It listens on 127.0.0.1 only, as every stand-in does. `startFauxqs` binds every interface,
 *   so the server is assembled from the package's own parts instead (its `buildApp`, its
 *   stores and its persistence, wired as `startFauxqs` wires them) and bound to loopback.
 * - It answers as an SQS of the local account. fauxqs names every queue in account
 *   000000000000; here queue URLs, queue ARNs, redrive policies and `SenderId` carry
 *   LOCAL_ACCOUNT, as the template's ARNs do. Queue URLs point where the caller called: at
 *   the IAM-checked endpoint for the functions (it passes its own address on), at the stand-in
 *   itself for the admin CLI.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LOCAL_ACCOUNT } from '../cloud/intrinsics.ts';
import { LOCAL_HOST } from '../local-host.ts';

/** How deep a queue is: what GetQueueAttributes calls visible, not visible, and delayed. */
export interface QueueDepth {
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
}

/** A running SQS. */
export interface SqsLocal {
  readonly endpoint: string;
  /** Creates a queue (or finds it) and answers its URL at this stand-in, as CreateQueue does. */
  createQueue(name: string, attributes?: Readonly<Record<string, string>>): string;
  /** Bodies of the messages a queue holds: visible, in flight and delayed. */
  messages(name: string): string[];
  /** The queue's depth; undefined when there is no such queue. */
  depth(name: string): QueueDepth | undefined;
  /**
   * Moves the queue's clock past the visibility timeout of every message in flight: they are
   * visible again at once, as they would be when it ran out (tests of redelivery, without
   * waiting out a timeout Lambda requires to be at least the function's).
   */
  endVisibility(name: string): number;
  /** Stops the server; with a data folder, what the queues hold is there at the next start. */
  stop(): Promise<void>;
}

/** How to start it. */
export interface SqsLocalOptions {
  /** Folder for fauxqs's SQLite file; without it the queues live in memory. */
  readonly dataDir?: string;
}

/** The account fauxqs names every queue in. */
const FAUXQS_ACCOUNT = '000000000000';

/** The parts of fauxqs this module uses (fauxqs ships its own types; its exports hide them). */
interface FauxQueue {
  readonly url: string;
  readonly attributes: Record<string, string>;
  getAttribute(name: string): string | undefined;
  readonly inflightMessages: Map<string, { visibilityDeadline: number }>;
  processTimers(): void;
  inspectMessages(): {
    ready: { body: string }[];
    delayed: { body: string }[];
    inflight: { message: { body: string } }[];
  };
  persistence?: unknown;
}
interface FauxSqsStore {
  host: string;
  persistence?: unknown;
  getQueueByName(name: string): FauxQueue | undefined;
  createQueue(
    name: string,
    url: string,
    arn: string,
    attributes?: Record<string, string>,
  ): FauxQueue;
  allQueues(): Iterable<FauxQueue>;
}
interface FauxStore {
  persistence?: unknown;
}
interface FauxPersistence {
  load(sqs: FauxSqsStore, sns: FauxStore, s3: FauxStore): void;
  close(): void;
  readonly db: { exec(sql: string): void };
}
interface FastifyLike {
  addHook(name: string, hook: (...args: never[]) => unknown): void;
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<void>;
}
interface FauxqsModules {
  buildApp(options: { logger: boolean; stores: Record<string, unknown> }): FastifyLike;
  SqsStore: new () => FauxSqsStore;
  SnsStore: new () => FauxStore;
  S3Store: new () => FauxStore;
  PersistenceManager: new (dataDir: string) => FauxPersistence;
}

let modules: Promise<FauxqsModules> | undefined;

/**
 * fauxqs's modules. The package exports only `buildApp` and `startFauxqs`; its stores and
 * persistence are files of the same (pinned) package, imported by path.
 */
function fauxqsModules(): Promise<FauxqsModules> {
  modules ??= (async () => {
    const require = createRequire(import.meta.url);
    const dist = (require.resolve.paths('fauxqs') ?? [])
      .map((folder) => join(folder, 'fauxqs', 'dist'))
      .find((folder) => existsSync(join(folder, 'app.js')));
    if (!dist) throw new Error('fauxqs is not installed (npm install)');
    const load = async (file: string): Promise<Record<string, unknown>> =>
      (await import(pathToFileURL(join(dist, file)).href)) as Record<string, unknown>;
    const [app, sqs, sns, s3, persistence] = await Promise.all([
      load('app.js'),
      load('sqs/sqsStore.js'),
      load('sns/snsStore.js'),
      load('s3/s3Store.js'),
      load('persistence.js'),
    ]);
    return {
      buildApp: app.buildApp,
      SqsStore: sqs.SqsStore,
      SnsStore: sns.SnsStore,
      S3Store: s3.S3Store,
      PersistenceManager: persistence.PersistenceManager,
    } as FauxqsModules;
  })();
  return modules;
}

/** `arn:aws:sqs:region:<account>:` of one account rewritten to the other's. */
const withAccount = (text: string, from: string, to: string): string =>
  text.replace(new RegExp(`(arn:aws:sqs:[^:]*:)${from}:`, 'g'), `$1${to}:`);

/** The queue name of a queue URL (its last path segment). */
const nameOfUrl = (url: string): string => url.split('/').at(-1) ?? '';

/** Attributes whose values hold queue ARNs (JSON policies). */
const ARN_ATTRIBUTES = ['RedrivePolicy', 'RedriveAllowPolicy', 'Policy'] as const;

/** Starts fauxqs on a free loopback port. */
export async function startSqsLocal(options: SqsLocalOptions = {}): Promise<SqsLocal> {
  const fauxqs = await fauxqsModules();
  const sqsStore = new fauxqs.SqsStore();
  // Empty: fauxqs builds a queue's URL from the Host of the request that created it. Every URL
  // it answers is rewritten below anyway.
  sqsStore.host = '';
  const snsStore = new fauxqs.SnsStore();
  const s3Store = new fauxqs.S3Store();
  let persistence: FauxPersistence | undefined;
  if (options.dataDir) {
    persistence = new fauxqs.PersistenceManager(options.dataDir);
    // Every change is a write of its own; durability against a crash of the process is what a
    // local run needs, not against a power cut, so commits need not wait for the disk.
    persistence.db.exec('PRAGMA synchronous = NORMAL');
    // As startFauxqs does it: load first, then write through.
    persistence.load(sqsStore, snsStore, s3Store);
    sqsStore.persistence = persistence;
    snsStore.persistence = persistence;
    s3Store.persistence = persistence;
    for (const queue of sqsStore.allQueues()) queue.persistence = persistence;
  }
  const app = fauxqs.buildApp({ logger: false, stores: { sqsStore, snsStore, s3Store } });
  app.addHook('preHandler', ((request: FauxRequest, _reply: unknown, done: () => void) => {
    toFauxqs(request);
    done();
  }) as never);
  app.addHook('onSend', ((
    request: FauxRequest,
    reply: { statusCode: number },
    payload: unknown,
    done: (error: null, payload: unknown) => void,
  ) => {
    done(null, fromFauxqs(request, reply.statusCode, payload));
  }) as never);
  if (persistence) {
    const open = persistence;
    app.addHook('preClose', (() => open.close()) as never);
  }
  const address = await app.listen({ port: 0, host: LOCAL_HOST });
  const endpoint = `http://${LOCAL_HOST}:${new URL(address).port}`;
  const urlOf = (name: string) => `${endpoint}/${LOCAL_ACCOUNT}/${name}`;
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    createQueue: (name, attributes = {}) => {
      if (!sqsStore.getQueueByName(name)) {
        const translated = Object.fromEntries(
          Object.entries(attributes).map(([key, value]) => [
            key,
            withAccount(value, LOCAL_ACCOUNT, FAUXQS_ACCOUNT),
          ]),
        );
        sqsStore.createQueue(
          name,
          `${endpoint}/${FAUXQS_ACCOUNT}/${name}`,
          `arn:aws:sqs:us-east-1:${FAUXQS_ACCOUNT}:${name}`,
          translated,
        );
      }
      return urlOf(name);
    },
    messages: (name) => {
      const queue = sqsStore.getQueueByName(name);
      if (!queue) return [];
      const { ready, delayed, inflight } = queue.inspectMessages();
      return [...ready, ...delayed, ...inflight.map((entry) => entry.message)].map(
        (message) => message.body,
      );
    },
    depth: (name) => {
      const queue = sqsStore.getQueueByName(name);
      if (!queue) return undefined;
      const count = (attribute: string) => Number(queue.getAttribute(attribute) ?? 0);
      return {
        visible: count('ApproximateNumberOfMessages'),
        inFlight: count('ApproximateNumberOfMessagesNotVisible'),
        delayed: count('ApproximateNumberOfMessagesDelayed'),
      };
    },
    endVisibility: (name) => {
      const queue = sqsStore.getQueueByName(name);
      if (!queue) return 0;
      const now = Date.now();
      for (const entry of queue.inflightMessages.values()) entry.visibilityDeadline = now;
      const count = queue.inflightMessages.size;
      queue.processTimers();
      return count;
    },
    stop: () => {
      stopping ??= app.close();
      return stopping;
    },
  };
}

/** What the hooks see of a request. */
interface FauxRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

const actionOf = (request: FauxRequest): string =>
  String(request.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');

/** A request in the local account's terms, rewritten to fauxqs's account. */
function toFauxqs(request: FauxRequest): void {
  const action = actionOf(request);
  if (action !== 'CreateQueue' && action !== 'SetQueueAttributes') return;
  const attributes = (request.body as { Attributes?: Record<string, unknown> } | null)?.Attributes;
  if (!attributes) return;
  for (const name of ARN_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value === 'string')
      attributes[name] = withAccount(value, LOCAL_ACCOUNT, FAUXQS_ACCOUNT);
  }
}

/**
 * fauxqs's answer in the local account's terms: queue URLs at the address the caller used
 * (`x-forwarded-host` when the IAM-checked endpoint forwarded the call), queue ARNs and
 * `SenderId` in LOCAL_ACCOUNT. Message bodies are never touched (their MD5 is checked).
 */
function fromFauxqs(request: FauxRequest, status: number, payload: unknown): unknown {
  const action = actionOf(request);
  const rewrites = ['CreateQueue', 'GetQueueUrl', 'ListQueues', 'GetQueueAttributes'];
  if (status !== 200 || typeof payload !== 'string' || payload === '') return payload;
  if (!rewrites.includes(action) && action !== 'ReceiveMessage') return payload;
  const forwarded = request.headers['x-forwarded-host'] ?? request.headers.host;
  const host = Array.isArray(forwarded) ? forwarded[0] : forwarded;
  const url = (fauxUrl: unknown): string =>
    `http://${host}/${LOCAL_ACCOUNT}/${nameOfUrl(String(fauxUrl))}`;
  const answer = JSON.parse(payload) as {
    QueueUrl?: string;
    QueueUrls?: string[];
    Attributes?: Record<string, string>;
    Messages?: { Attributes?: Record<string, string> }[];
  };
  if (answer.QueueUrl) answer.QueueUrl = url(answer.QueueUrl);
  if (answer.QueueUrls) answer.QueueUrls = answer.QueueUrls.map(url);
  if (answer.Attributes) {
    for (const [name, value] of Object.entries(answer.Attributes)) {
      answer.Attributes[name] = withAccount(value, FAUXQS_ACCOUNT, LOCAL_ACCOUNT);
    }
  }
  for (const message of answer.Messages ?? []) {
    // SQS names the sender; fauxqs keeps no sender, and says the account, as SQS does for it.
    if (message.Attributes?.SenderId) message.Attributes.SenderId = LOCAL_ACCOUNT;
  }
  return JSON.stringify(answer);
}
