import { sesClient } from '../shared/aws/ses-client.ts';
import { SesMailer } from '../shared/mail/ses-mailer.ts';
import { Newsletter } from '../shared/newsletter.ts';
import { apiHandler } from './http/api-handler.ts';

Newsletter.configure({ mailer: new SesMailer(sesClient()) });

/** `POST /subscribe`: the key is optional; without it the public-form rules apply. */
export const handler = apiHandler('subscribe', (params, context) =>
  Newsletter.subscribe(params, context),
);
