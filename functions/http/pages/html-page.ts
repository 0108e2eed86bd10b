import { createHash } from 'node:crypto';
import { escapeHtml } from '../../../shared/domain/escape-html.ts';

/**
 * A server-rendered page: what a handler puts into its HTTP response as is. `headers` holds
 * the content type and the security headers every page needs, so no handler forgets one.
 */
export interface HtmlPage {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly html: string;
}

// One stylesheet for every page; readable on a phone (18px text, full-width 48px buttons).
const _CSS = [
  '*,*::before,*::after{box-sizing:border-box}',
  'html{-webkit-text-size-adjust:100%;text-size-adjust:100%}',
  "body{margin:0;background:#f4f4f5;color:#1f2937;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:18px;line-height:1.5}",
  'main{max-width:34rem;margin:0 auto;padding:2.5rem 1.25rem}',
  'h1{font-size:1.625rem;line-height:1.25;margin:0 0 1rem}',
  'p{margin:0 0 1rem}',
  'form{margin:1.5rem 0 0}',
  'button{display:block;width:100%;min-height:3rem;padding:.875rem 1.25rem;border:0;border-radius:.5rem;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;cursor:pointer}',
  'button:hover{background:#1e40af}',
  'button:focus-visible{outline:3px solid #93c5fd;outline-offset:2px}',
  '.reference{color:#6b7280;font-size:.875rem}',
].join('');

// The stylesheet is pinned by its hash, so the policy can forbid every other style and script.
const _CSS_HASH = createHash('sha256').update(_CSS).digest('base64');

const _HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  // Pages answer one-off links; a cached copy would show a stale outcome or keep a token.
  'Cache-Control': 'no-store',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${_CSS_HASH}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  'X-Content-Type-Options': 'nosniff',
  // The page URL holds the token; no request made from the page may carry it along.
  'Referrer-Policy': 'no-referrer',
};

/**
 * Wraps page content into the shared document: `lang="en"`, charset, viewport, title, one
 * `<main>` starting with an `<h1>` of `title`, inline CSS only, no script, no external asset.
 *
 * @param title plain text, escaped here; also the document title.
 * @param content HTML built by a page module in which every interpolated value is escaped.
 * @param extraHeaders added to (or overriding) the shared headers, e.g. `Retry-After`.
 */
export function htmlPage(
  status: number,
  title: string,
  content: string,
  extraHeaders: Readonly<Record<string, string>> = {},
): HtmlPage {
  const heading = escapeHtml(title);
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${heading}</title>
<style>${_CSS}</style>
</head>
<body>
<main>
<h1>${heading}</h1>
${content}
</main>
</body>
</html>
`;
  return { status, headers: { ..._HEADERS, ...extraHeaders }, html };
}
