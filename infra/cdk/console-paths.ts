/**
 * Which request paths of the console's origin are the console's client-side routes (answered
 * with `/index.html`): one rule for CloudFront's viewer-request function and for `npm start`,
 * so a path that works locally works deployed. A path whose last segment has no dot is a
 * route (`/issues/12`); one with a dot is a file (`/console.js`), missing or not. The rule is
 * applied only on the console's behaviour, never to the API's paths, so an API error is never
 * turned into the page (CloudFront's custom error responses would do that for every origin).
 */

/** The last segment of a client-side route: no dot. */
export const CLIENT_ROUTE = /\/[^/.]*$/;

/** The object a request path is answered with: the path itself, or the page for a route. */
export function consoleObjectPath(path: string): string {
  return path === '/' || CLIENT_ROUTE.test(path) ? '/index.html' : path;
}

/** CloudFront Function (viewer request) code applying `consoleObjectPath` to the request. */
export function consoleRewriteFunctionCode(): string {
  return [
    'function handler(event) {',
    '  var request = event.request;',
    `  if (request.uri === '/' || ${CLIENT_ROUTE.toString()}.test(request.uri)) request.uri = '/index.html';`,
    '  return request;',
    '}',
  ].join('\n');
}
