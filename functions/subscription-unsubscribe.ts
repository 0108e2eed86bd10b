import { Newsletter } from '../shared/newsletter.ts';
import { pageHandler } from './http/page-handler.ts';
import { unsubscribePage } from './http/pages/unsubscribe-page.ts';

/** The unsubscribe link: GET shows the button, POST (or RFC 8058 one-click) unsubscribes. */
export const handler = pageHandler('subscription-unsubscribe', {
  purpose: 'unsubscribe',
  show: unsubscribePage,
  act: (token) => Newsletter.unsubscribe_link({ token }),
});
