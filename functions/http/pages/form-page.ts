import type { NewsletterError } from '../../../shared/domain/errors.ts';
import { escapeHtml } from '../../../shared/domain/escape-html.ts';
import { type HtmlPage, htmlPage } from './html-page.ts';

/** How a plain HTML subscription form ended, for the page a browser lands on. */
export type FormOutcome =
  | { readonly kind: 'pending' }
  | { readonly kind: 'subscribed' }
  | { readonly kind: 'failed'; readonly error: NewsletterError; readonly requestId?: string };

/**
 * The hosted page after a plain HTML form posted to /subscribe, when the operator configured
 * no success or error URL: "check your inbox" (double opt-in), "you are subscribed" (single),
 * or the error in words with a way back to the form. The same page for every address, like the
 * JSON answer, so it tells nobody who is subscribed.
 *
 * @param back the page the form was on (Referer), offered as a link only if it is http(s).
 */
export function formPage(outcome: FormOutcome, back?: string): HtmlPage {
  if (outcome.kind === 'pending') {
    return htmlPage(
      200,
      'Check your inbox',
      [
        '<p>Thank you! We have sent you an e-mail with a link to confirm your subscription.</p>',
        '<p>If it does not arrive within a few minutes, look in your spam folder.</p>',
      ].join('\n'),
    );
  }
  if (outcome.kind === 'subscribed') {
    return htmlPage(
      200,
      'You are subscribed',
      '<p>Thank you! You will receive our newsletter at this address.</p>',
    );
  }
  const { error, requestId } = outcome;
  const paragraphs = [`<p>${escapeHtml(error.message)}</p>`];
  const backLink = back && /^https?:\/\//i.test(back) ? back : undefined;
  paragraphs.push(
    backLink
      ? `<p><a href="${escapeHtml(backLink)}">Back to the form</a></p>`
      : '<p>Please go back to the form and try again.</p>',
  );
  if (error.status >= 500 && requestId) {
    paragraphs.push(`<p class="reference">Reference: ${escapeHtml(requestId)}</p>`);
  }
  return htmlPage(
    error.status,
    error.status >= 500 ? 'Please try again' : 'Your subscription did not go through',
    paragraphs.join('\n'),
    error.status === 503 ? { 'Retry-After': '30' } : {},
  );
}
