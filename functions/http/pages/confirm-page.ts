import { type HtmlPage, htmlPage } from './html-page.ts';
import { tokenForm } from './token-form.ts';

/**
 * The page behind the activation link (`GET {api_root}/subscription/confirm?token=T`), status
 * 200. It only shows a button that POSTs the token to the same URL: mail scanners follow GET
 * links, so a GET must never confirm. Whether the token is known is decided on POST.
 */
export function confirmPage(token: string): HtmlPage {
  return htmlPage(
    200,
    'Confirm your subscription',
    `<p>Press the button below to confirm your subscription to our newsletter.</p>
<p>We ask for this extra step because some mail programs open links on their own. If you did not ask to subscribe, close this page and nothing will happen.</p>
${tokenForm(token, 'Confirm my subscription')}`,
  );
}
