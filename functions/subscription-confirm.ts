import { sesClient } from '../shared/aws/ses-client.ts';
import { SesMailer } from '../shared/mail/ses-mailer.ts';
import { Newsletter } from '../shared/newsletter.ts';
import { confirmPage } from '../shared/pages/confirm-page.ts';
import { pageHandler } from './http/page-handler.ts';

Newsletter.configure({ mailer: new SesMailer(sesClient()) });

/** The activation link: GET shows the confirm button (scanners confirm nobody), POST confirms. */
export const handler = pageHandler('subscription-confirm', {
  purpose: 'confirm',
  show: confirmPage,
  act: (token, context) => Newsletter.confirm_subscription({ token }, context),
});
