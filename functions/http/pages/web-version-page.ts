import type { APIGatewayProxyResult } from 'aws-lambda';

/**
 * How long browsers and shared caches may keep a web version: 5 minutes. A sent issue's content
 * never changes, but it can be made private, or sent again to the new (which takes it off the
 * web until that run ends): a copy outlives such a change by at most this long. Errors are
 * `no-store` (responses.ts), so a 404 seen while an issue was still sending is not kept.
 */
export const WEB_VERSION_MAX_AGE_SECONDS = 300;

/**
 * The page is the operator's HTML, served from the API's own origin: the `sandbox` policy puts
 * it in an opaque origin with no script, no form and no plugin, so nothing in it can act as the
 * API's pages (link pages, forms) do. Mail HTML needs remote images, fonts and inline styles;
 * links open in the same tab or, with `target="_blank"`, in a new one outside the sandbox.
 */
const _CONTENT_SECURITY_POLICY = [
  'sandbox allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation',
  "default-src 'none'",
  'img-src https: http: data:',
  "style-src 'unsafe-inline' https: http:",
  'font-src https: http: data:',
  "form-action 'none'",
  "base-uri 'none'",
].join('; ');

const _HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': `public, max-age=${WEB_VERSION_MAX_AGE_SECONDS}`,
  'Content-Security-Policy': _CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
};

/** The 200 of the web version: the document viewNewsletter rendered, with its headers. */
export function webVersionResponse(answer: unknown): APIGatewayProxyResult {
  const { html } = answer as { readonly html: string };
  return { statusCode: 200, headers: { ..._HEADERS }, body: html };
}
