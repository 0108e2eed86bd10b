/**
 * The local service as the end-to-end and browser tests drive it: one `startLocalStack` per
 * test file (aws-ses-v2-local allows one instance per process), real HTTP requests against its
 * API root, the mails the local SES stored, and the few levers a test needs (settings, SES
 * down and up, token expiry) pulled through the same stand-ins an operator would use.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DEMO_SETTINGS } from '../../../infra/local/demo-data.ts';
import type { LocalStackOptions } from '../../../infra/local/local-stack.ts';
import {
  rawHeader,
  type SesLocal,
  type StoredMail,
} from '../../../infra/local/stand-ins/ses-local.ts';
import type { SettingsInput } from '../../../shared/domain/settings-schema.ts';
import type { Subscriber } from '../../../shared/domain/subscriber.ts';
import { ENV_DEFAULTS } from '../../../shared/runtime/environment.ts';
import { startTestStack, type TestStack } from '../../support/test-stack.ts';

/** How a POST body is encoded. */
export type BodyType = 'json' | 'form' | 'multipart';

/** A form value; arrays become repeated fields (`lists[]=1&lists[]=4`). */
export type FormValue = string | number | boolean;
export type FormFields = Readonly<Record<string, FormValue | readonly FormValue[]>>;

/** An HTTP answer, read completely. */
export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body when the response is JSON, else undefined. */
  readonly json: unknown;
}

/** The JSON error body of decisions part 6. */
export interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly data: { readonly status: number; readonly request_id?: string };
}

/** One request and its answer, kept so a test can look for leaks in every body sent back. */
export interface Exchange {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** The links of a mail's text part. */
export interface MailLinks {
  readonly confirm?: string;
  readonly unsubscribe?: string;
}

/** Options of `post`. */
export interface PostOptions {
  readonly type?: BodyType;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Wait for the stream to apply a keyless subscribe before returning (default true). Off
   * for a test that must act while the outbox is stuck (SES down).
   */
  readonly settle?: boolean;
}

/** The running local service and the helpers the tests use on it. */
export interface LocalService {
  readonly stack: TestStack;
  readonly apiRoot: string;
  readonly apiKey: string;
  /** The SES stand-in currently running (a new one after `restartSes`). */
  readonly ses: SesLocal;
  /** Every request made through this helper, in order. */
  readonly exchanges: readonly Exchange[];
  /** Every log line the functions wrote (JSON text), in order. */
  readonly logLines: readonly string[];

  /** POSTs `body` to `path` (below the API root, or an absolute URL). */
  post(path: string, body?: unknown, options?: PostOptions): Promise<ApiResponse>;
  /** GETs `path` with `query` in the query string. */
  get(path: string, query?: FormFields, headers?: Record<string, string>): Promise<ApiResponse>;
  /** A request exactly as given: for raw bodies, odd content types and other methods. */
  request(method: string, path: string, init?: RequestInit): Promise<ApiResponse>;

  /** The subscriber with `email` among the 20 newest (POST /subscribers with the key). */
  subscriber(email: string): Promise<Subscriber | undefined>;
  /** The 20 newest subscribers (POST /subscribers with the key). */
  subscribers(): Promise<Subscriber[]>;

  /** Mails stored by the local SES, oldest first; only those to `to` when given. */
  mails(to?: string): Promise<StoredMail[]>;

  /** Replaces the settings with the test baseline plus `patch`; applies to the next request. */
  setSettings(patch?: Partial<SettingsInput>): void;
  /**
   * Moves the address's activation history a day back, as if that much time had passed: the
   * cooldown (at least five minutes) and the daily cap no longer hold a resend back.
   */
  ageActivations(email: string): Promise<void>;
  /** Sets the settings back to the test baseline. */
  resetSettings(): void;

  /** Stops the SES stand-in, so sends fail as when SES is unreachable. */
  stopSes(): Promise<void>;
  /** Starts a new SES stand-in (fresh port; stored mail survives) and sends go to it again. */
  restartSes(): Promise<void>;

  /** Moves a token's expiry into the past, directly in DynamoDB. */
  expireToken(rawToken: string): Promise<void>;

  /** Stops everything this helper started. */
  stop(): Promise<void>;
}

/**
 * The settings every e2e file starts from: the demo settings `npm start` seeds, with the
 * keyless rate limit off, since one test file sends far more public calls from 127.0.0.1 than
 * a person would (the limit has its own tests in test/integration).
 */
export const BASELINE_SETTINGS: SettingsInput = {
  ...DEMO_SETTINGS,
  public_rate_limit: { max_requests: 0, window_minutes: 10 },
};

const LINK = /https?:\/\/[^\s<>"]+\/subscription\/(confirm|unsubscribe)\?token=[A-Za-z0-9_%-]+/g;

/** The confirm and unsubscribe links in a mail's text part. */
export function linksIn(mail: StoredMail): MailLinks {
  const links: { confirm?: string; unsubscribe?: string } = {};
  for (const match of (mail.body.text ?? '').matchAll(LINK)) {
    const kind = match[1] as 'confirm' | 'unsubscribe';
    links[kind] ??= match[0];
  }
  return links;
}

/** The raw token of a link. */
export function tokenOf(link: string): string {
  const token = new URL(link).searchParams.get('token');
  if (!token) throw new Error(`No token in ${link}`);
  return token;
}

/** The URL inside the `List-Unsubscribe: <url>` header of a mail, if it has one. */
export function listUnsubscribeUrl(mail: StoredMail): string | undefined {
  const [value] = rawHeader(mail, 'List-Unsubscribe');
  return value === undefined ? undefined : /^<([^>]+)>$/.exec(value)?.[1];
}

/** The top-level header block of a mail's raw MIME (empty without `raw`). */
export function rawHeaderBlock(mail: StoredMail): string {
  const raw = mail.raw ?? '';
  const end = raw.search(/\r?\n\r?\n/);
  return end === -1 ? raw : raw.slice(0, end);
}

/** The stored hash of a raw token (what the token item's key is built from). */
export function tokenHash(rawToken: string): string {
  return createHash('sha256').update(rawToken, 'utf8').digest('hex');
}

function appendForm(
  append: (name: string, value: string) => void,
  fields: FormFields | undefined,
): void {
  for (const [name, value] of Object.entries(fields ?? {})) {
    const values: readonly FormValue[] = Array.isArray(value) ? value : [value as FormValue];
    for (const item of values) append(name, String(item));
  }
}

function encodeBody(
  body: unknown,
  type: BodyType,
): { body: string | FormData; contentType?: string } {
  switch (type) {
    case 'json':
      // A string is sent as it is, so tests can send malformed JSON.
      return {
        body: typeof body === 'string' ? body : JSON.stringify(body ?? {}),
        contentType: 'application/json',
      };
    case 'form': {
      const params = new URLSearchParams();
      appendForm((name, value) => params.append(name, value), body as FormFields);
      return { body: params.toString(), contentType: 'application/x-www-form-urlencoded' };
    }
    case 'multipart': {
      const form = new FormData();
      appendForm((name, value) => form.append(name, value), body as FormFields);
      // fetch writes the content type itself, boundary included.
      return { body: form };
    }
  }
}

/** Starts the local service on free ports, in memory, seeded, settings applied at once. */
export async function startLocalService(
  options: Partial<LocalStackOptions> = {},
): Promise<LocalService> {
  const stack = await startTestStack(options);
  const exchanges: Exchange[] = [];
  const dynamo = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );

  const urlOf = (path: string): string =>
    /^https?:/.test(path) ? path : `${stack.apiRoot}${path}`;

  const request = async (
    method: string,
    path: string,
    init: RequestInit = {},
    { settle = true }: { settle?: boolean } = {},
  ) => {
    const url = urlOf(path);
    const response = await fetch(url, { ...init, method, redirect: 'manual' });
    // A keyless subscribe is applied by the stream a moment after its answer; tests look at
    // the state after that moment, as a person reloading a page would.
    if (settle && /\/subscribe\/?$/.test(new URL(url).pathname)) await stack.settled();
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    exchanges.push({ method, url, status: response.status, contentType, text });
    let json: unknown;
    if (contentType.startsWith('application/json')) json = JSON.parse(text);
    return { status: response.status, headers: response.headers, text, json };
  };

  const post = (path: string, body?: unknown, options: PostOptions = {}) => {
    const encoded = encodeBody(body, options.type ?? 'json');
    const headers: Record<string, string> = { ...options.headers };
    if (encoded.contentType) headers['Content-Type'] = encoded.contentType;
    return request(
      'POST',
      path,
      { body: encoded.body, headers },
      { settle: options.settle ?? true },
    );
  };

  const get = (path: string, query?: FormFields, headers: Record<string, string> = {}) => {
    const params = new URLSearchParams();
    appendForm((name, value) => params.append(name, value), query);
    const search = params.size ? `?${params}` : '';
    return request('GET', `${urlOf(path)}${search}`, { headers });
  };

  const subscribers = async (): Promise<Subscriber[]> => {
    // What a keyless subscribe recorded is applied by the stream a moment later.
    await stack.settled();
    const response = await post('/subscribers', { api_key: stack.apiKey });
    if (response.status !== 200) throw new Error(`POST /subscribers: ${response.text}`);
    return response.json as Subscriber[];
  };

  const setSettings = (patch: Partial<SettingsInput> = {}): void => {
    stack.parameters.put(
      ENV_DEFAULTS.settingsParameter,
      JSON.stringify({ ...BASELINE_SETTINGS, ...patch }),
    );
  };
  setSettings();

  return {
    stack,
    apiRoot: stack.apiRoot,
    apiKey: stack.apiKey,
    get ses() {
      return stack.liveSes;
    },
    exchanges,
    logLines: stack.logLines,
    post,
    get,
    request,
    subscribers,
    subscriber: async (email) => (await subscribers()).find((s) => s.email === email),
    mails: async (to) => {
      const all = await stack.liveSes.messages();
      if (to === undefined) return all;
      const wanted = to.toLowerCase();
      return all.filter((mail) =>
        mail.destination.to.some((header) => header.toLowerCase().includes(wanted)),
      );
    },
    setSettings,
    resetSettings: () => setSettings(),
    ageActivations: async (email) => {
      const dayAgo = Date.now() - 24 * 3600 * 1000 - 60_000;
      await dynamo.send(
        new UpdateCommand({
          TableName: stack.tableName,
          Key: { pk: `SUBSCRIBER#${email}`, sk: 'subscriber' },
          UpdateExpression: 'SET activation_sent_at = :past REMOVE activation_log',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':past': dayAgo },
        }),
      );
    },
    stopSes: () => stack.stopSes(),
    restartSes: () => stack.restartSes(),
    expireToken: async (rawToken) => {
      await dynamo.send(
        new UpdateCommand({
          TableName: stack.tableName,
          Key: { pk: `TOKEN#${tokenHash(rawToken)}`, sk: 'token' },
          UpdateExpression: 'SET expires_at = :past',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 60 },
        }),
      );
    },
    stop: async () => {
      dynamo.destroy();
      await stack.stop();
    },
  };
}
