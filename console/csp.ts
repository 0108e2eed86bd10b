/**
 * The console's Content-Security-Policies, defined once: CloudFront's response headers policy
 * and `npm start` both send them, so a page that breaks under them breaks locally too.
 */

/** Every console page: scripts, styles and calls from the console's own origin only. */
export function consolePolicy(cognitoOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${cognitoOrigin}`,
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The page an issue's preview is shown in (inside a sandboxed frame without same-origin). */
export const PREVIEW_PATH = '/preview.html';

/**
 * The preview frame's policy: an issue's HTML brings its own style blocks and remote images,
 * so inline styles and any image load, but no script of the runs, only the page's own
 * (which receives the HTML by postMessage), and the frame may only be embedded by the console.
 */
export const PREVIEW_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  'img-src * data:',
  'font-src *',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');
