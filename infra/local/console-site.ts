/**
 * The console as `npm start` serves it beside the API on the API's own origin, as CloudFront
 * serves it deployed: the built files at `/` with the console's Content-Security-Policy
 * (console/csp.ts; the preview page's own on `/preview.html`), `/config.json` saying where the
 * API and Cognito are, and the page for every client-side route (infra/cdk/console-paths.ts).
 */
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { consolePolicy, PREVIEW_PATH, PREVIEW_POLICY } from '../../console/csp.ts';
import { consoleObjectPath } from '../cdk/console-paths.ts';

/** What `/config.json` answers (the console's contract). */
export interface ConsoleConfig {
  readonly apiBase: string;
  readonly cognito: {
    /** Where the browser POSTs Cognito's JSON API. */
    readonly endpoint: string;
    readonly region: string;
    readonly userPoolId: string;
    readonly clientId: string;
  };
}

/** An answer of the site. */
export interface SiteAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer | string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
};

/** The headers CloudFront's response headers policy adds to every answer of the console. */
export function consoleHeaders(path: string, cognitoOrigin: string): Record<string, string> {
  return {
    'Content-Security-Policy':
      path === PREVIEW_PATH ? PREVIEW_POLICY : consolePolicy(cognitoOrigin),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    ...(path === PREVIEW_PATH ? {} : { 'X-Frame-Options': 'DENY' }),
  };
}

/** Answers a request for the console's origin outside the API's stage. */
export function consoleSite(
  dir: string,
  config: ConsoleConfig,
): (method: string, url: URL) => Promise<SiteAnswer> {
  const cognitoOrigin = new URL(config.cognito.endpoint).origin;
  return async (method, url) => {
    if (method !== 'GET' && method !== 'HEAD') {
      // CloudFront's answer to a method its behaviour does not allow.
      return { status: 403, headers: { 'Content-Type': 'text/plain' }, body: 'Forbidden' };
    }
    if (url.pathname === '/config.json') {
      return {
        status: 200,
        headers: {
          'Content-Type': TYPES['.json'] ?? '',
          'Cache-Control': 'no-cache',
          ...consoleHeaders(url.pathname, cognitoOrigin),
        },
        body: JSON.stringify(config),
      };
    }
    const path = consoleObjectPath(url.pathname);
    const file = normalize(join(dir, decodeURIComponent(path)));
    const headers = consoleHeaders(path, cognitoOrigin);
    if (!file.startsWith(normalize(dir))) {
      return {
        status: 404,
        headers: { ...headers, 'Content-Type': 'text/plain' },
        body: 'Not Found',
      };
    }
    try {
      const body = await readFile(file);
      return {
        status: 200,
        headers: {
          ...headers,
          'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
          'Cache-Control': path === '/index.html' ? 'no-cache' : 'max-age=300',
        },
        body: method === 'HEAD' ? '' : body,
      };
    } catch {
      // S3 behind origin access control answers a missing object with 403, as here.
      return {
        status: 403,
        headers: { ...headers, 'Content-Type': 'text/plain' },
        body: 'Forbidden',
      };
    }
  };
}
