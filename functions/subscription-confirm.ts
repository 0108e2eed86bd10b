import { SesMailer } from '../shared/adapters/mail/ses-mailer.ts';
import { Newsletter } from '../shared/newsletter.ts';
import { sesClient } from '../shared/runtime/ses-client.ts';
import { pageHandler } from './http/page-handler.ts';
import { confirmPage } from './http/pages/confirm-page.ts';

Newsletter.configure({ mailer: new SesMailer(sesClient()) });

/** The activation link: GET shows the confirm button (scanners confirm nobody), POST confirms. */
export const handler = pageHandler('subscription-confirm', {
  purpose: 'confirm',
  show: confirmPage,
  act: (token, context) => Newsletter.confirm_subscription({ token }, context),
});
