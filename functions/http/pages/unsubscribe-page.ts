import { type HtmlPage, htmlPage } from './html-page.ts';
import { tokenForm } from './token-form.ts';

/**
 * The page behind the unsubscribe link (`GET {api_root}/subscription/unsubscribe?token=T`),
 * status 200. It only shows a button that POSTs the token to the same URL: mail scanners
 * follow GET links, so a GET must never unsubscribe. (Mail clients use RFC 8058 one-click,
 * a POST to the same URL, and never see this page.)
 */
export function unsubscribePage(token: string): HtmlPage {
  return htmlPage(
    200,
    'Unsubscribe',
    `<p>Press the button below to stop receiving our newsletter at this address.</p>
<p>If you opened this link by mistake, close this page and nothing will change.</p>
${tokenForm(token, 'Unsubscribe')}`,
  );
}
