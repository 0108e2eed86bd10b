/**
 * Calls to the API's v2 routes with the signed-in person's ID token. Errors come back as the
 * API words them (`{code, message, data: {status}}`); the console adds what to do, never a
 * rule of its own.
 */

/** The API's refusal or a failure on the way there. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    /** HTTP status; 0 when the API could not be reached. */
    readonly status: number,
    /** The API's error code (`invalid_parameter`, `over_quota`, …), or `network`. */
    readonly code: string,
    message: string,
    /** The whole error body, for answers that carry more (a quota warning's figures). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** An answer's parsed body and its headers (`X-WP-Total`, `Link`). */
export interface ApiAnswer<T> {
  readonly body: T;
  readonly headers: Headers;
}

/** How a call is made. */
export interface CallOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** JSON-encoded unless a string (sent as is, with `contentType`). */
  readonly body?: unknown;
  readonly contentType?: string;
  readonly accept?: string;
}

/** The console's API client. */
export interface Api {
  /** Calls a path below the v2 root (`/issues/3`) or a path-absolute URL from a `Link`. */
  call<T>(path: string, options?: CallOptions): Promise<ApiAnswer<T>>;
  /** The answer's text (CSV), for downloads. */
  text(path: string, options?: CallOptions): Promise<ApiAnswer<string>>;
}

/**
 * Builds the client: `token` gives a fresh ID token (refreshing it when near its end),
 * `expired` is told when the API no longer accepts the person's session.
 */
export function makeApi(apiBase: string, token: () => Promise<string>, expired: () => void): Api {
  async function send(path: string, options: CallOptions): Promise<Response> {
    const url = path.startsWith(apiBase) || path.startsWith('http') ? path : `${apiBase}${path}`;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${await token()}`,
      Accept: options.accept ?? 'application/json',
    };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['Content-Type'] = options.contentType ?? 'application/json';
    }
    let answer: Response;
    try {
      answer = await fetch(url, { method: options.method ?? 'GET', headers, body });
    } catch {
      throw new ApiError(0, 'network', 'The API could not be reached.');
    }
    if (answer.status === 401) expired();
    if (!answer.ok) {
      const error = (await answer.json().catch(() => undefined)) as
        | { code?: string; message?: string }
        | undefined;
      throw new ApiError(
        answer.status,
        error?.code ?? 'http_error',
        error?.message ?? `The API answered ${answer.status}.`,
        error,
      );
    }
    return answer;
  }
  return {
    async call<T>(path: string, options: CallOptions = {}) {
      const answer = await send(path, options);
      const text = await answer.text();
      return { body: (text ? JSON.parse(text) : undefined) as T, headers: answer.headers };
    },
    async text(path: string, options: CallOptions = {}) {
      const answer = await send(path, options);
      return { body: await answer.text(), headers: answer.headers };
    },
  };
}

/** What to do about a failure, by its kind (the message itself is the API's). */
export function whatToDo(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Reload the page and try again.';
  if (error.status === 0) return 'Check your connection, then try again.';
  if (error.status === 400) return 'Correct what the message names, then try again.';
  if (error.status === 401) return 'Your session ended: sign in again.';
  if (error.status === 403) return 'Your role may not do this: ask an admin.';
  if (error.status === 404) return 'It may have been deleted: go back to the list and reload it.';
  if (error.status === 409) return 'Reload to see its state now, then try again.';
  if (error.status === 413) return 'Make it smaller, then try again.';
  if (error.status === 429) return 'Too many requests: wait a minute, then try again.';
  return 'Try again in a moment; if it keeps failing, an admin can check the service logs.';
}

/** The message of any failure. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The next part's address of a `Link: <…>; rel="next"` header, if any. */
export function nextLink(headers: Headers): string | undefined {
  return /<([^>]+)>;\s*rel="next"/.exec(headers.get('Link') ?? '')?.[1];
}

/**
 * Every part of a CSV the API answers in parts (the report's, the subscribers' export), each
 * `Link: rel="next"` followed, joined into the one file; `onLines` hears the lines read so far.
 */
export async function readCsvParts(
  api: Pick<Api, 'text'>,
  first: string,
  onLines: (lines: number) => void,
): Promise<string> {
  let path: string | undefined = first;
  let text = '';
  while (path) {
    const part = await api.text(path, { accept: 'text/csv' });
    text += part.body;
    onLines(text.split('\n').filter(Boolean).length);
    path = nextLink(part.headers);
  }
  return text;
}
