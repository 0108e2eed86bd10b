import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Config } from 'aws-ses-v2-local';
import type { Email } from 'aws-ses-v2-local/dist/store.js';
import { simpleParser } from 'mailparser';
import { type ForwardedRequest, serveInProcess } from '../cloud/in-process-upstreams.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../cloud/intrinsics.ts';
import { LOCAL_HOST } from '../local-host.ts';
import { readBody } from '../read-body.ts';
import { type MailSource, serveMailViewer } from './mail-viewer.ts';
import { eventsOf, mailObject, statisticOf } from './ses-events.ts';
import { serveTracking, type TrackedMail, trackMessage } from './ses-tracking.ts';

/** One attachment as aws-ses-v2-local stores it. */
export interface StoredAttachment {
  /** Base64 of the decoded attachment bytes. */
  content: string;
  contentType: string;
  filename?: string;
  /** Decoded size in bytes. */
  size: number;
  /** The fields below are mailparser's and appear only for raw sends. */
  type?: string;
  partId?: string;
  contentDisposition?: string;
  contentId?: string;
  checksum?: string;
}

/**
 * One email as aws-ses-v2-local's `GET /store` returns it, plus `raw`, which SesLocal adds.
 *
 * For raw sends (SES v1 SendRawEmail, v2 SendEmail with Raw content) the store keeps only
 * what mailparser extracted: addresses, subject, text/html bodies, attachments. It keeps no
 * headers at all (no `headers` key), so `List-Unsubscribe` is visible only in `raw`.
 */
export interface StoredMail {
  /** `ses-` followed by nine digits; the MessageId the send call returned. */
  messageId: string;
  /** The From header as text, display name included: `"News" <news@example.com>`. */
  from: string;
  replyTo: string[];
  /**
   * For raw sends each array holds at most one string: the whole header as text, e.g.
   * `a@example.com, "B" <b@example.com>`. SendRawEmail's `Destinations` are not recorded.
   */
  destination: { to: string[]; cc: string[]; bcc: string[] };
  /** Decoded subject (RFC 2047 words resolved); `(no subject)` when a raw mail has none. */
  subject: string;
  /** Decoded MIME parts; a key is absent when the mail has no such part. */
  body: { text?: string; html?: string };
  attachments: StoredAttachment[];
  /** Only for SES v2 Simple/Template sends that pass `Headers`; never for raw sends. */
  headers?: { name: string; value: string }[];
  /** Time the stand-in received it, in whole seconds since the epoch. */
  at: number;
  /**
   * Not from `/store`: the MIME message exactly as the client sent it (UTF-8 decoded), for
   * raw sends that went through this SesLocal. Read headers from it with `rawHeader()`.
   */
  raw?: string;
}

/** An event SES publishes to an SNS topic: what an event destination of a configuration set sends. */
export interface SesNotification {
  /** The configuration set the send named (SNS sees it as the publisher: `aws:SourceArn`). */
  readonly configurationSet: string;
  readonly topicArn: string;
  /** The event's JSON, as SNS hands it on (`Records[].Sns.Message`). */
  readonly message: string;
}

/** Where SES's SNS destinations publish: the local cloud's topics. */
export type SesPublisher = (notification: SesNotification) => void;

/** How to start the SES stand-in. */
export interface SesLocalOptions {
  /** TCP port; a free one is picked when omitted. */
  port?: number;
  /**
   * Receives the events of sends that name a configuration set with an SNS destination.
   * Without it, events go nowhere, as to a topic that does not exist.
   */
  publish?: SesPublisher;
}

/** A running aws-ses-v2-local, in this process. */
export interface SesLocal {
  /** Base URL for `endpoint` / `AWS_ENDPOINT_URL_SES`, e.g. `http://127.0.0.1:8005`. */
  readonly endpoint: string;
  /** The web viewer (live inbox) to open in a browser. */
  readonly viewerUrl: string;
  readonly port: number;
  /** Every stored mail, oldest first. */
  messages(): Promise<StoredMail[]>;
  /** Empties the store (mail and SES v2 templates). */
  clear(): Promise<void>;
  /** What GetSendQuota answers now (the account's quota and what it sent in 24 hours). */
  sendQuota(): SendQuota;
  /** Sets the account's quota that GetSendQuota reports (and enforces, see `enforceQuota`). */
  setQuota(quota: Partial<Omit<SendQuota, 'sentLast24Hours'>>): void;
  /**
   * Refuses, as SES does, a send beyond the quota: once `maxSendRate` recipients were accepted
   * in the last second, or `max24HourSend` in the last 24 hours (`Throttling`, HTTP 400).
   * Off by default: every send is accepted.
   */
  enforceQuota(enforce: boolean): void;
  /** Refuses every send for `ms` milliseconds as throttled (0 ends it): a throttle storm. */
  throttleStorm(ms: number): void;
  /**
   * Refuses every send as SES refuses one for the account or the sender, until called with
   * undefined: `account_paused` (`AccountSendingPausedException`), `account_suspended` and
   * `sender_unverified` (`MessageRejected` with SES's message for each).
   */
  refuseSends(refusal: LocalAccountRefusal | undefined): void;
  /**
   * Takes the next `count` sends and answers each only after `ms` milliseconds: a client whose
   * timeout is shorter sees no answer for a mail SES took.
   */
  slowAnswers(count: number, ms: number): void;
  /** Moves the account's sending history `ms` into the past: time passing for the daily quota. */
  ageSends(ms: number): void;
  /** When each recipient of the last 24 hours was accepted (epoch ms, oldest first). */
  sendTimes(): number[];
  /** Closes the port, dropping open connections. Safe to call more than once. */
  stop(): Promise<void>;
}

/** Refusals about the account or the sender the stand-in can play. */
export type LocalAccountRefusal = 'account_paused' | 'account_suspended' | 'sender_unverified';

/** SES's error code and message for each, as its v1 API answers them. */
const ACCOUNT_REFUSALS: Readonly<Record<LocalAccountRefusal, { code: string; message: string }>> = {
  account_paused: {
    code: 'AccountSendingPausedException',
    message: 'Email sending is disabled for the account.',
  },
  account_suspended: {
    code: 'MessageRejected',
    message:
      'Sending suspended for this account. For more information, please check the inbox of the email address associated with your AWS account.',
  },
  sender_unverified: {
    code: 'MessageRejected',
    message:
      'Email address is not verified. The following identities failed the check in region US-EAST-1: ',
  },
};

/** The account's sending quota, as GetSendQuota reports it. */
export interface SendQuota {
  /** Recipients SES accepts per second. */
  readonly maxSendRate: number;
  /** Recipients SES accepts per 24 hours. */
  readonly max24HourSend: number;
  readonly sentLast24Hours: number;
}

// require(), not import: the package is CommonJS with `exports.default`, which Node's ESM
// loader and vitest's interop hand out differently (exports object vs. the function).
const require = createRequire(import.meta.url);
const { default: startSesServer } = require('aws-ses-v2-local') as {
  default: (config?: Partial<Config>) => Promise<Server>;
};
// The library's own store and message ids: a raw send is stored there by the front (below).
const { saveEmail } = require('aws-ses-v2-local/dist/store') as {
  saveEmail: (email: Email) => void;
};
const { getMessageId, getCurrentTimestamp } = require('aws-ses-v2-local/dist/util') as {
  getMessageId: () => string;
  getCurrentTimestamp: () => number;
};

const MAX_BODY_BYTES = 40 * 1024 * 1024;
const UPSTREAM_TIMEOUT_MS = 10_000;
// Connection-level headers describe one hop and must not be copied to the next.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
]);

// aws-ses-v2-local keeps its store in module state, shared by every server in the process;
// the captured raw messages live beside it with the same lifetime. Both therefore survive a
// stop() and start again in the same process, like mail already sent through real SES.
const rawByMessageId = new Map<string, Buffer>();
let activeInstance = false;

/**
 * Raw sends the front stored in the library's store with only their From, to be parsed when
 * the store is first read (`parseStored`). aws-ses-v2-local parses every raw send with
 * mailparser as it arrives, behind one more HTTP hop: in a campaign bench that was a fifth of
 * the local cloud's busy time for mail nobody reads.
 */
const unparsed = new Map<Email, { readonly raw: Buffer; readonly source: string | undefined }>();

/** The parses under way: one pass at a time, so no reader sees a mail another pass is parsing. */
let parsing: Promise<void> = Promise.resolve();

/** Fills in what the library's SendRawEmail handler would have stored for each unparsed send. */
function parseStored(): Promise<void> {
  parsing = parsing.then(parsePending);
  return parsing;
}

async function parsePending(): Promise<void> {
  for (const [mail, { raw, source }] of [...unparsed]) {
    unparsed.delete(mail);
    // mailparser takes any bytes; a mail it still cannot read keeps what the front stored.
    const message = await simpleParser(raw).catch(() => undefined);
    if (!message) continue;
    const texts = (value: typeof message.to): string[] =>
      (Array.isArray(value) ? value : value ? [value] : []).map((address) => address.text);
    Object.assign(mail, {
      from: message.from?.text ?? source ?? mail.from,
      replyTo: message.replyTo ? [message.replyTo.text] : [],
      destination: { to: texts(message.to), cc: texts(message.cc), bcc: texts(message.bcc) },
      subject: message.subject ?? '(no subject)',
      body: { text: message.text, html: message.html || undefined },
      attachments: message.attachments.map((attachment) => ({
        ...attachment,
        content: attachment.content.toString('base64'),
      })),
    });
  }
}

/** An event destination of a configuration set (only SNS destinations exist locally). */
interface EventDestination {
  readonly name: string;
  readonly enabled: boolean;
  /** Matching event types as SES names them: `bounce`, `complaint`, `delivery`, ... */
  readonly eventTypes: ReadonlySet<string>;
  readonly topicArn: string;
}

// Configuration sets are account configuration, kept beside the store with the same lifetime:
// a stand-in stopped and started again (an SES outage in a test) still knows them.
const configurationSets = new Map<string, EventDestination[]>();

/**
 * The account's sending quota and history, account state kept as the configuration sets are:
 * the starting quota of an account with production access (14 per second, 50,000 a day).
 */
const sending = {
  quota: { maxSendRate: 14, max24HourSend: 50_000 },
  enforce: false,
  stormUntil: 0,
  refusal: undefined as LocalAccountRefusal | undefined,
  slow: { count: 0, ms: 0 },
  /** Accepted (or being accepted) sends: when, and how many recipients. Oldest first. */
  sent: [] as { at: number; recipients: number }[],
  /** The recipients of `sent`, kept as it changes: the daily check must not walk a day's sends. */
  sentTotal: 0,
  /**
   * Accepted sends as GetSendStatistics counts them, kept two weeks: when, delivery attempts
   * (recipients), and how many of them bounce or complain (the mailbox simulator's fates).
   */
  statistics: [] as { at: number; attempts: number; bounces: number; complaints: number }[],
};

/** How far back GetSendStatistics reaches: two weeks. */
const STATISTICS_MS = 14 * 86_400_000;
/** SES's data points are 15-minute periods. */
const DATA_POINT_MS = 15 * 60_000;

const DAY_MS = 86_400_000;

/** Recipients sent since `since` (epoch ms), forgetting what is older than a day. */
function sentSince(since: number, now: number): number {
  while (sending.sent.length > 0 && (sending.sent[0]?.at ?? now) <= now - DAY_MS) {
    sending.sentTotal -= sending.sent.shift()?.recipients ?? 0;
  }
  if (since <= now - DAY_MS) return sending.sentTotal;
  let total = 0;
  for (let i = sending.sent.length - 1; i >= 0; i -= 1) {
    const entry = sending.sent[i];
    if (!entry || entry.at <= since) break;
    total += entry.recipients;
  }
  return total;
}

/**
 * Admits a send of `recipients` recipients as SES's quota does, or says why not. SES accepts a
 * send while at least one recipient of the second's rate is left. An admitted send counts at
 * once (concurrent sends must not all pass), and is taken back if it then fails.
 */
function admit(
  recipients: number,
): { refused: string } | { sent: { at: number; recipients: number } } {
  const now = Date.now();
  if (now < sending.stormUntil) return { refused: 'Maximum sending rate exceeded.' };
  if (sending.enforce) {
    if (sentSince(now - DAY_MS, now) >= sending.quota.max24HourSend) {
      return { refused: 'Daily message quota exceeded.' };
    }
    if (sentSince(now - 1000, now) >= sending.quota.maxSendRate) {
      return { refused: 'Maximum sending rate exceeded.' };
    }
  }
  const sent = { at: now, recipients };
  sending.sent.push(sent);
  sending.sentTotal += recipients;
  return { sent };
}

/** The event types SES accepts in an event destination. */
const EVENT_TYPES = new Set([
  'send',
  'reject',
  'bounce',
  'complaint',
  'delivery',
  'open',
  'click',
  'renderingFailure',
  'deliveryDelay',
  'subscription',
]);

/**
 * Starts aws-ses-v2-local in this process (no child process to leak) behind a small
 * forwarding server that records the raw MIME of every raw send, because the library's store
 * drops all headers. The front also answers GetSendQuota (aws-ses-v2-local does not) and
 * applies the account's sending quota when told to (`enforceQuota`, `throttleStorm`), as SES
 * does: a send beyond it is refused with `Throttling` and dropped, never queued.
 *
 * Requests need an SDK-signed `Authorization` header (any fake credentials do).
 *
 * @throws Error when another SesLocal is running in this process (they would share one
 *   store) or the port is taken.
 */
export async function startSesLocal(options: SesLocalOptions = {}): Promise<SesLocal> {
  if (activeInstance) {
    throw new Error('SesLocal: one instance per process; aws-ses-v2-local keeps one shared store');
  }
  activeInstance = true;
  try {
    return await start(options);
  } catch (error) {
    activeInstance = false;
    throw error;
  }
}

async function start(options: SesLocalOptions): Promise<SesLocal> {
  // Port 0: the OS picks a free port as the socket binds, so no other process can take it first.
  const port = options.port ?? 0;
  const inner = await startSesServer({ host: LOCAL_HOST, port: 0 });
  const innerPort = (inner.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true });
  const viewer: MailSource = {
    messages: async () => {
      await parseStored();
      const response = await fetch(`http://${LOCAL_HOST}:${innerPort}/store`);
      return ((await response.json()) as { emails: StoredMail[] }).emails;
    },
    rawMessage: (messageId) => rawByMessageId.get(messageId),
  };
  const tracking = (): string => `http://${LOCAL_HOST}:${(front.address() as AddressInfo).port}`;
  const failed = (res: ServerResponse) => (error: unknown) => {
    if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'text/plain' });
    }
    res.end(`SesLocal: ${error instanceof Error ? error.message : String(error)}`);
  };
  const front = createServer((req, res) => {
    serveFront(req, res, viewer, innerPort, agent, options.publish, tracking).catch(failed(res));
  });
  try {
    await listen(front, port);
  } catch (error) {
    agent.destroy();
    await close(inner);
    throw error;
  }

  // Port 0 asks the OS for a free port; advertise the one actually bound, not 0.
  const boundPort = (front.address() as AddressInfo).port;
  const endpoint = `http://${LOCAL_HOST}:${boundPort}`;
  const innerBase = `http://${LOCAL_HOST}:${innerPort}`;
  const stopServingInProcess = serveInProcess(endpoint, (request, res) =>
    serveApi(request, res, innerPort, agent, options.publish, tracking).catch(failed(res)),
  );
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    viewerUrl: `${endpoint}/`,
    port: boundPort,
    messages: async () => {
      await parseStored();
      const response = await fetch(`${innerBase}/store`);
      if (!response.ok) {
        throw new Error(`SesLocal: GET /store answered ${response.status}`);
      }
      const store = (await response.json()) as { emails: StoredMail[] };
      return store.emails.map((mail) => {
        const raw = rawByMessageId.get(mail.messageId);
        return raw === undefined ? mail : { ...mail, raw: raw.toString('utf8') };
      });
    },
    clear: async () => {
      const response = await fetch(`${innerBase}/clear-store`, { method: 'POST' });
      // Drain the body so the connection goes back to fetch's pool.
      await response.arrayBuffer();
      if (!response.ok) {
        throw new Error(`SesLocal: POST /clear-store answered ${response.status}`);
      }
      rawByMessageId.clear();
      unparsed.clear();
    },
    sendQuota: () => ({
      ...sending.quota,
      sentLast24Hours: sentSince(Date.now() - DAY_MS, Date.now()),
    }),
    setQuota: (quota) => {
      sending.quota = { ...sending.quota, ...quota };
    },
    enforceQuota: (enforce) => {
      sending.enforce = enforce;
    },
    throttleStorm: (ms) => {
      sending.stormUntil = Date.now() + ms;
    },
    refuseSends: (refusal) => {
      sending.refusal = refusal;
    },
    slowAnswers: (count, ms) => {
      sending.slow = { count, ms };
    },
    ageSends: (ms) => {
      for (const entry of sending.sent) entry.at -= ms;
      for (const entry of sending.statistics) entry.at -= ms;
    },
    sendTimes: () => {
      sentSince(Date.now() - DAY_MS, Date.now());
      return sending.sent.flatMap((entry) =>
        Array.from({ length: entry.recipients }, () => entry.at),
      );
    },
    stop: () => {
      stopping ??= (async () => {
        // Like SES becoming unreachable: no new connection is taken, and a send already
        // accepted gets its answer. Cutting it off would be a lost acknowledgement (a send
        // that was stored but looks failed), another fault than an outage.
        stopServingInProcess();
        await close(front);
        await close(inner);
        agent.destroy();
        activeInstance = false;
      })();
      return stopping;
    },
  };
}

/**
 * Unfolded values of every header `name` (case-insensitive) in the top-level header block of
 * a captured raw message; empty when the mail has no `raw` or no such header.
 */
export function rawHeader(mail: Pick<StoredMail, 'raw'>, name: string): string[] {
  if (mail.raw === undefined) {
    return [];
  }
  const end = mail.raw.search(/\r?\n\r?\n/);
  const block = end === -1 ? mail.raw : mail.raw.slice(0, end);
  // RFC 5322 folding: a line break followed by whitespace continues the previous header.
  const lines = block.replace(/\r?\n(?=[ \t])/g, '').split(/\r?\n/);
  const prefix = `${name.toLowerCase()}:`;
  return lines
    .filter((line) => line.toLowerCase().startsWith(prefix))
    .map((line) => line.slice(prefix.length).trim());
}

/**
 * The stand-in's front door: the mail viewer's routes, the library's .eml download answered
 * with the exact message (the library rebuilds one), the configuration-set actions the local
 * cloud creates the stack's configuration set with, and everything else forwarded to
 * aws-ses-v2-local with raw sends captured on the way. A send naming a configuration set that
 * does not exist is refused, as SES refuses it; one naming an existing set publishes its events.
 */
async function serveFront(
  req: IncomingMessage,
  res: ServerResponse,
  viewer: MailSource,
  innerPort: number,
  agent: Agent,
  publish: SesPublisher | undefined,
  trackingBase: () => string,
): Promise<void> {
  if (serveTracking(req, res, (set, type, json) => publishTracked(set, type, json, publish)))
    return;
  if (await serveMailViewer(req, res, viewer)) return;
  const url = new URL(req.url ?? '/', 'http://ses');
  const raw =
    url.pathname === '/get-emlContent'
      ? viewer.rawMessage(url.searchParams.get('messageId') ?? '')
      : undefined;
  if (raw) {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ fileName: url.searchParams.get('messageId'), body: raw.toJSON() }));
    return;
  }
  // What the library answers from its store (`GET /store`) holds every raw send parsed.
  if (req.method !== 'POST') await parseStored();
  const body = await readBody(req, MAX_BODY_BYTES);
  if (!body) throw new Error('body too large');
  await serveApi(
    { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body },
    res,
    innerPort,
    agent,
    publish,
    trackingBase,
  );
}

/**
 * SES's API: the configuration-set actions, GetSendQuota and GetSendStatistics answered here,
 * raw sends stored here, everything else forwarded to aws-ses-v2-local; the account's state
 * and quota applied to every send. Reached through the front's port, or in-process from the
 * AWS endpoint (in-process-upstreams.ts).
 */
async function serveApi(
  req: ForwardedRequest,
  res: ServerResponse,
  innerPort: number,
  agent: Agent,
  publish: SesPublisher | undefined,
  trackingBase: () => string,
): Promise<void> {
  const { body } = req;
  const url = new URL(req.url, 'http://ses');
  // SES v1 (query protocol): the action is a form field of the body. Unsigned requests go on
  // to aws-ses-v2-local, which refuses them as SES does.
  const signed = String(req.headers.authorization ?? '').startsWith('AWS');
  const form =
    signed && req.method === 'POST' && url.pathname === '/'
      ? new URLSearchParams(body.toString('utf8'))
      : undefined;
  const action = form?.get('Action');
  const rawSend = form && action === 'SendRawEmail' ? rawSendOf(form) : undefined;
  if (form && action === 'CreateConfigurationSet') {
    createConfigurationSet(res, form);
    return;
  }
  if (form && action === 'CreateConfigurationSetEventDestination') {
    createEventDestination(res, form);
    return;
  }
  if (form && action === 'GetSendQuota') {
    answerSendQuota(res);
    return;
  }
  if (form && action === 'GetSendStatistics') {
    answerSendStatistics(res);
    return;
  }
  const configurationSet = form?.get('ConfigurationSetName') ?? undefined;
  if (configurationSet !== undefined && !configurationSets.has(configurationSet)) {
    queryError(
      res,
      'ConfigurationSetDoesNotExist',
      `Configuration set <${configurationSet}> does not exist.`,
    );
    return;
  }
  const isSend =
    (form !== undefined && action !== undefined && action !== null && SEND_ACTIONS.has(action)) ||
    (req.method === 'POST' && url.pathname === '/v2/email/outbound-emails');
  let admitted: { at: number; recipients: number } | undefined;
  if (isSend && form && sending.refusal) {
    // The account's or the sender's state is checked before the quota, as SES does.
    const refusal = ACCOUNT_REFUSALS[sending.refusal];
    const named = sending.refusal === 'sender_unverified' ? (form.get('Source') ?? '') : '';
    queryError(res, refusal.code, `${refusal.message}${named}`);
    return;
  }
  let holdAnswerMs = 0;
  if (isSend && sending.slow.count > 0) {
    sending.slow.count -= 1;
    holdAnswerMs = sending.slow.ms;
  }
  if (isSend) {
    const verdict = admit(form ? recipientsOf(form, rawSend) : 1);
    if ('refused' in verdict) {
      throttled(res, form !== undefined, verdict.refused);
      return;
    }
    admitted = verdict.sent;
  }
  // A set with open or click events: SES rewrites the HTML before sending ([engagement.local]).
  const tracked =
    rawSend && configurationSet !== undefined
      ? trackSend(rawSend, configurationSet, trackingBase())
      : undefined;
  let accepted = false;
  const onAccepted = (answer: Buffer): void => {
    accepted = true;
    if (form && rawSend && configurationSet !== undefined) {
      const published = publishEvents(form, rawSend, answer, configurationSet, publish);
      if (tracked && published) tracked.mail = published;
    }
  };
  try {
    const stored = form && rawSend ? storeRawSend(form, rawSend) : undefined;
    if (stored) {
      onAccepted(stored);
      if (holdAnswerMs > 0) await new Promise((done) => setTimeout(done, holdAnswerMs));
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(stored);
    } else {
      // Anything else goes to the library, and a raw send it takes itself as tracking left it.
      if (form && rawSend && tracked) form.set('RawMessage.Data', rawSend.data.toString('base64'));
      const sent = form && tracked ? Buffer.from(form.toString(), 'utf8') : body;
      await forward(req, res, sent, innerPort, agent, onAccepted, holdAnswerMs);
    }
  } finally {
    // A send the store refused was not sent: it does not count against the quota.
    if (admitted && !accepted) {
      sending.sentTotal -= admitted.recipients;
      admitted.recipients = 0;
    }
    if (admitted && accepted) recordStatistics(admitted, form, rawSend);
  }
}

/** A SendRawEmail's message, decoded once: its bytes and its top-level header block as text. */
interface RawSend {
  data: Buffer;
  head: string;
}

function rawSendOf(form: URLSearchParams): RawSend | undefined {
  const data = form.get('RawMessage.Data');
  return data === null ? undefined : withHead(Buffer.from(data, 'base64'));
}

function withHead(data: Buffer): RawSend {
  const ends = [data.indexOf('\r\n\r\n'), data.indexOf('\n\n')].filter((at) => at >= 0);
  const end = ends.length > 0 ? Math.min(...ends) : data.length;
  return { data, head: data.subarray(0, end).toString('utf8') };
}

/**
 * Stores a raw send in aws-ses-v2-local's store as its SendRawEmail handler does, with the
 * parsing left for the first read (`parseStored`); the answer its handler gives. Undefined
 * for a send the library must take itself: one it refuses (no From header and no Source), or
 * any while it relays to SMTP (it relays parsed mail at once).
 */
function storeRawSend(form: URLSearchParams, send: RawSend): Buffer | undefined {
  if (process.env.SMTP_TRANSPORT?.trim()) return undefined;
  const source = form.get('Source') || undefined;
  const from = source ?? rawHeader({ raw: send.head }, 'From')[0];
  if (!from) return undefined;
  const messageId = getMessageId();
  const mail: Email = {
    messageId,
    from,
    replyTo: [],
    destination: { to: [], cc: [], bcc: [] },
    subject: '',
    body: {},
    attachments: [],
    at: getCurrentTimestamp(),
  };
  unparsed.set(mail, { raw: send.data, source });
  saveEmail(mail);
  rawByMessageId.set(messageId, send.data);
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><SendRawEmailResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><SendRawEmailResult><MessageId>${messageId}</MessageId></SendRawEmailResult></SendRawEmailResponse>`,
  );
}

/** Counts an accepted send in the sending statistics, as SES does for GetSendStatistics. */
function recordStatistics(
  admitted: { at: number; recipients: number },
  form: URLSearchParams | undefined,
  rawSend: RawSend | undefined,
): void {
  const counted = { at: admitted.at, attempts: admitted.recipients, bounces: 0, complaints: 0 };
  for (const recipient of form ? recipientAddressesOf(form, rawSend) : []) {
    const statistic = statisticOf(recipient);
    if (statistic === 'bounce') counted.bounces += 1;
    if (statistic === 'complaint') counted.complaints += 1;
  }
  sending.statistics.push(counted);
  const since = Date.now() - STATISTICS_MS;
  while ((sending.statistics[0]?.at ?? since) < since) sending.statistics.shift();
}

/** SES v1 actions that send mail (and count against the quota). */
const SEND_ACTIONS: ReadonlySet<string> = new Set([
  'SendEmail',
  'SendRawEmail',
  'SendTemplatedEmail',
  'SendBulkTemplatedEmail',
]);

/** The addresses a v1 send goes to: its Destinations, or its raw message's To, Cc and Bcc. */
function recipientAddressesOf(form: URLSearchParams, rawSend: RawSend | undefined): string[] {
  const listed = [...form.entries()]
    .filter(([key]) => /^(Destinations|Destination\.(To|Cc|Bcc)Addresses)\.member\.\d+$/.test(key))
    .map(([, value]) => value);
  if (listed.length > 0 || !rawSend) return listed;
  const raw = rawSend.head;
  return ['To', 'Cc', 'Bcc'].flatMap((name) =>
    rawHeader({ raw }, name).flatMap((value) =>
      value
        .split(',')
        .map((part) => (/<([^>]+)>/.exec(part)?.[1] ?? part).trim())
        .filter(Boolean),
    ),
  );
}

/** How many recipients a v1 send has: its Destinations, or its destination lists' addresses. */
function recipientsOf(form: URLSearchParams, rawSend: RawSend | undefined): number {
  let count = 0;
  for (const key of form.keys()) {
    if (/^(Destinations|Destination\.(To|Cc|Bcc)Addresses)\.member\.\d+$/.test(key)) count += 1;
  }
  if (count > 0 || !rawSend) return Math.max(1, count);
  const raw = rawSend.head;
  const addresses = ['To', 'Cc', 'Bcc'].flatMap((name) =>
    rawHeader({ raw }, name).flatMap((value) => value.split(',').filter((part) => part.trim())),
  );
  return Math.max(1, addresses.length);
}

/**
 * GetSendStatistics' answer (SES v1): one data point per 15-minute period of the last two weeks
 * that had sends, with its delivery attempts, bounces and complaints (rejects: the stand-in
 * refuses nothing for its content, so none), in no particular order, as SES gives them.
 */
function answerSendStatistics(res: ServerResponse): void {
  const since = Date.now() - STATISTICS_MS;
  const periods = new Map<number, { attempts: number; bounces: number; complaints: number }>();
  for (const entry of sending.statistics) {
    if (entry.at < since || entry.attempts === 0) continue;
    const period = Math.floor(entry.at / DATA_POINT_MS) * DATA_POINT_MS;
    const sum = periods.get(period) ?? { attempts: 0, bounces: 0, complaints: 0 };
    sum.attempts += entry.attempts;
    sum.bounces += entry.bounces;
    sum.complaints += entry.complaints;
    periods.set(period, sum);
  }
  const members = [...periods]
    .map(
      ([period, sum]) =>
        `<member><DeliveryAttempts>${sum.attempts}</DeliveryAttempts><Timestamp>${new Date(period).toISOString().replace(/\.\d{3}Z$/, 'Z')}</Timestamp><Rejects>0</Rejects><Bounces>${sum.bounces}</Bounces><Complaints>${sum.complaints}</Complaints></member>`,
    )
    .join('');
  res.writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
  res.end(
    `<GetSendStatisticsResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><GetSendStatisticsResult><SendDataPoints>${members}</SendDataPoints></GetSendStatisticsResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></GetSendStatisticsResponse>`,
  );
}

/** GetSendQuota's answer (SES v1). */
function answerSendQuota(res: ServerResponse): void {
  const now = Date.now();
  const figure = (value: number) => value.toFixed(1);
  res.writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
  res.end(
    `<GetSendQuotaResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><GetSendQuotaResult><SentLast24Hours>${figure(sentSince(now - DAY_MS, now))}</SentLast24Hours><Max24HourSend>${figure(sending.quota.max24HourSend)}</Max24HourSend><MaxSendRate>${figure(sending.quota.maxSendRate)}</MaxSendRate></GetSendQuotaResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></GetSendQuotaResponse>`,
  );
}

/** SES's refusal of a send beyond the quota: v1 `Throttling` (HTTP 400), v2 `TooManyRequestsException` (429). */
function throttled(res: ServerResponse, queryProtocol: boolean, message: string): void {
  if (queryProtocol) {
    queryError(res, 'Throttling', message);
    return;
  }
  res.writeHead(429, {
    'content-type': 'application/json',
    'x-amzn-requestid': randomUUID(),
    'x-amzn-errortype': 'TooManyRequestsException',
  });
  res.end(JSON.stringify({ message }));
}

/** A SES v1 answer to an action that returns no data. */
function queryAnswer(res: ServerResponse, action: string): void {
  res.writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
  res.end(
    `<${action}Response xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><${action}Result/><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`,
  );
}

/** A SES v1 error answer, as the SDK parses it (the code names the exception). */
function queryError(res: ServerResponse, code: string, message: string): void {
  const escaped = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  res.writeHead(400, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
  res.end(
    `<ErrorResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${escaped}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );
}

/** The members of a query-protocol list (`Prefix.member.1`, `Prefix.member.2`, ...), in order. */
function members(form: URLSearchParams, prefix: string): string[] {
  const found: string[] = [];
  for (let index = 1; form.has(`${prefix}.member.${index}`); index += 1) {
    found.push(form.get(`${prefix}.member.${index}`) ?? '');
  }
  return found;
}

/** The send's message tags (`Tags.member.N.Name` / `.Value`), which SES repeats in its events. */
function messageTags(form: URLSearchParams): Record<string, string> {
  const tags: Record<string, string> = {};
  for (let index = 1; form.has(`Tags.member.${index}.Name`); index += 1) {
    tags[form.get(`Tags.member.${index}.Name`) ?? ''] =
      form.get(`Tags.member.${index}.Value`) ?? '';
  }
  return tags;
}

function createConfigurationSet(res: ServerResponse, form: URLSearchParams): void {
  const name = form.get('ConfigurationSet.Name') ?? '';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    queryError(res, 'InvalidConfigurationSet', `Configuration set name <${name}> is not valid.`);
    return;
  }
  if (configurationSets.has(name)) {
    queryError(res, 'ConfigurationSetAlreadyExists', `Configuration set <${name}> already exists.`);
    return;
  }
  configurationSets.set(name, []);
  queryAnswer(res, 'CreateConfigurationSet');
}

/** Adds an event destination; only SNS destinations exist locally (all the stack uses). */
function createEventDestination(res: ServerResponse, form: URLSearchParams): void {
  const setName = form.get('ConfigurationSetName') ?? '';
  const destinations = configurationSets.get(setName);
  if (!destinations) {
    queryError(
      res,
      'ConfigurationSetDoesNotExist',
      `Configuration set <${setName}> does not exist.`,
    );
    return;
  }
  const name = form.get('EventDestination.Name') ?? '';
  const topicArn = form.get('EventDestination.SNSDestination.TopicARN');
  const eventTypes = members(form, 'EventDestination.MatchingEventTypes');
  const invalid = eventTypes.find((type) => !EVENT_TYPES.has(type));
  if (!topicArn || eventTypes.length === 0 || invalid !== undefined || name === '') {
    queryError(
      res,
      'InvalidParameterValue',
      `Event destination ${name}: only an SNS destination with valid event types runs locally.`,
    );
    return;
  }
  if (destinations.some((destination) => destination.name === name)) {
    queryError(res, 'EventDestinationAlreadyExists', `Event destination ${name} already exists.`);
    return;
  }
  destinations.push({
    name,
    enabled: form.get('EventDestination.Enabled') === 'true',
    eventTypes: new Set(eventTypes),
    topicArn,
  });
  queryAnswer(res, 'CreateConfigurationSetEventDestination');
}

/**
 * Publishes the events of an accepted SendRawEmail to the configuration set's SNS destinations
 * that match their type. Called before the send is answered: on AWS events come a moment
 * later, and publishing first only guarantees that whoever waits for quiet sees them.
 */
function publishEvents(
  form: URLSearchParams,
  rawSend: RawSend,
  answer: Buffer,
  configurationSet: string,
  publish: SesPublisher | undefined,
): Record<string, unknown> | undefined {
  const messageId = /<MessageId>([^<]+)<\/MessageId>/.exec(answer.toString('utf8'))?.[1];
  if (!messageId || !publish) return undefined;
  const raw = rawSend.data;
  const recipients = members(form, 'Destinations');
  const headerAddresses = (name: string) =>
    rawHeader({ raw: rawSend.head }, name).flatMap((value) =>
      value.split(',').map((part) => (/<([^>]+)>/.exec(part)?.[1] ?? part).trim()),
    );
  const send = {
    messageId,
    source: form.get('Source') ?? rawHeader({ raw: rawSend.head }, 'From')[0] ?? '',
    // Without Destinations, SES takes the recipients from the message's headers.
    recipients: recipients.length
      ? recipients
      : ['To', 'Cc', 'Bcc'].flatMap(headerAddresses).filter(Boolean),
    raw,
    configurationSet,
    tags: messageTags(form),
    at: new Date(),
    account: { id: LOCAL_ACCOUNT, region: LOCAL_REGION },
  };
  const events = eventsOf(send);
  for (const destination of configurationSets.get(configurationSet) ?? []) {
    if (!destination.enabled) continue;
    for (const event of events) {
      const type = event.eventType.charAt(0).toLowerCase() + event.eventType.slice(1);
      if (!destination.eventTypes.has(type)) continue;
      publish({
        configurationSet,
        topicArn: destination.topicArn,
        message: JSON.stringify(event.json),
      });
    }
  }
  return mailObject(send);
}

/**
 * Rewrites a SendRawEmail's message for tracking when its set has an enabled open or click
 * destination (`rawSend` is changed in place); the record to complete once SES accepts it.
 */
function trackSend(
  rawSend: RawSend,
  configurationSet: string,
  base: string,
): TrackedMail | undefined {
  const tracks = (configurationSets.get(configurationSet) ?? []).some(
    (destination) =>
      destination.enabled &&
      (destination.eventTypes.has('open') || destination.eventTypes.has('click')),
  );
  if (!tracks) return undefined;
  const rewrite = trackMessage(rawSend.data, base, configurationSet);
  Object.assign(rawSend, withHead(rewrite.raw));
  return rewrite.mail;
}

/** Publishes an open or a click to the set's enabled destinations for that type. */
function publishTracked(
  configurationSet: string,
  type: 'open' | 'click',
  json: Record<string, unknown>,
  publish: SesPublisher | undefined,
): void {
  for (const destination of configurationSets.get(configurationSet) ?? []) {
    if (!destination.enabled || !destination.eventTypes.has(type)) continue;
    publish?.({ configurationSet, topicArn: destination.topicArn, message: JSON.stringify(json) });
  }
}

/** Forwards to aws-ses-v2-local; `accepted` sees a successful answer before the caller does. */
async function forward(
  req: ForwardedRequest,
  res: ServerResponse,
  body: Buffer,
  innerPort: number,
  agent: Agent,
  accepted: (answer: Buffer) => void = () => undefined,
  /** How long to hold the answer to a send that was taken (a slow SES). */
  holdAnswerMs = 0,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(key)) {
      headers[key] = value;
    }
  }
  headers['content-length'] = String(body.length);

  const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request(
      { host: LOCAL_HOST, port: innerPort, method: req.method, path: req.url, headers, agent },
      resolve,
    );
    outgoing.once('error', reject);
    // aws-ses-v2-local never answers a v1 POST whose Action it does not know; a 502 beats an
    // SDK call that hangs forever (the SDK sets no request timeout by default).
    outgoing.setTimeout(UPSTREAM_TIMEOUT_MS, () =>
      outgoing.destroy(new Error('no answer from aws-ses-v2-local')),
    );
    outgoing.end(body);
  });
  const answer = await readBody(upstream, MAX_BODY_BYTES);
  if (!answer) throw new Error('body too large');
  const status = upstream.statusCode ?? 502;
  if (status === 200) {
    captureRaw(req, body, answer);
    accepted(answer);
    if (holdAnswerMs > 0) await new Promise((done) => setTimeout(done, holdAnswerMs));
  }
  const responseHeaders: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(key)) {
      responseHeaders[key] = value;
    }
  }
  res.writeHead(status, responseHeaders);
  res.end(answer);
}

function captureRaw(req: ForwardedRequest, body: Buffer, answer: Buffer): void {
  const path = req.url.split('?')[0];
  if (req.method !== 'POST') {
    return;
  }
  if (path === '/') {
    // SES v1 (query protocol): a form body and an XML answer.
    const form = new URLSearchParams(body.toString('utf8'));
    const data = form.get('RawMessage.Data');
    const messageId = /<MessageId>([^<]+)<\/MessageId>/.exec(answer.toString('utf8'))?.[1];
    if (form.get('Action') === 'SendRawEmail' && data !== null && messageId !== undefined) {
      rawByMessageId.set(messageId, Buffer.from(data, 'base64'));
    }
    return;
  }
  if (path === '/v2/email/outbound-emails') {
    // SES v2 (REST JSON): Content.Raw.Data in, MessageId out.
    const data = parseJson(body)?.Content?.Raw?.Data;
    const messageId = parseJson(answer)?.MessageId;
    if (typeof data === 'string' && typeof messageId === 'string') {
      rawByMessageId.set(messageId, Buffer.from(data, 'base64'));
    }
  }
}

interface SesV2Json {
  Content?: { Raw?: { Data?: unknown } };
  MessageId?: unknown;
}

function parseJson(buffer: Buffer): SesV2Json | undefined {
  try {
    const value: unknown = JSON.parse(buffer.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as SesV2Json) : undefined;
  } catch {
    return undefined;
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOCAL_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** How long a request already in progress may take to finish when the stand-in stops. */
const STOP_GRACE_MS = 2_000;

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive sockets (the SDK's, fetch's) would hold close() open indefinitely: idle ones
    // go now, busy ones once their answer is out, or after the grace period.
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 20);
    const deadline = setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS);
    server.once('close', () => {
      clearInterval(sweep);
      clearTimeout(deadline);
    });
  });
}
