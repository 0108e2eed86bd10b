import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import Negotiator from 'negotiator';
import { isNewsletterError, type NewsletterError } from '../../shared/domain/errors.ts';
import type { Settings } from '../../shared/domain/settings-schema.ts';
import { header } from './headers.ts';
import { type FormOutcome, formPage } from './pages/form-page.ts';

const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);

/**
 * Whether a request is a plain HTML form a browser posted (a form body, and an `Accept` that
 * prefers HTML to JSON, as browsers send for navigations): it must land on a page, not on
 * JSON. A `fetch()` call (which accepts any type) or any API client keeps its JSON.
 */
export function isBrowserFormPost(event: Pick<APIGatewayProxyEvent, 'headers'>): boolean {
  const contentType = header(event, 'content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!FORM_TYPES.has(contentType)) return false;
  const accept = header(event, 'accept');
  if (!accept) return false;
  return (
    new Negotiator({ headers: { accept } }).mediaType(['application/json', 'text/html']) ===
    'text/html'
  );
}

/**
 * Where a browser's form post lands: a 303 to the operator's success or error URL (from the
 * settings, never from the request), with the error code in the query for errors; without
 * them, a hosted page. `settings` is undefined when they could not be read (the error then
 * says why), and the hosted page is used.
 */
export function formAnswer(
  outcome: { status: 'pending' | 'subscribed' } | NewsletterError,
  settings: Settings | undefined,
  context: { requestId: string; referer: string | undefined },
): APIGatewayProxyResult {
  const failed = isNewsletterError(outcome);
  const target = failed ? settings?.form_error_url : settings?.form_success_url;
  if (target) {
    const location = new URL(target);
    if (failed) location.searchParams.set('error', outcome.code);
    return {
      statusCode: 303,
      headers: { Location: location.href, 'Cache-Control': 'no-store' },
      body: '',
    };
  }
  const page: FormOutcome = failed
    ? { kind: 'failed', error: outcome, requestId: context.requestId }
    : { kind: outcome.status };
  const html = formPage(page, context.referer);
  return { statusCode: html.status, headers: { ...html.headers }, body: html.html };
}

/** How a route with `formPage` answers a browser's form post, for apiHandler. */
export interface BrowserForms {
  readonly isBrowserFormPost: typeof isBrowserFormPost;
  readonly formAnswer: typeof formAnswer;
}

/** The browser form answers, for the handler of a route with `formPage` (subscribe). */
export const BROWSER_FORMS: BrowserForms = { isBrowserFormPost, formAnswer };
