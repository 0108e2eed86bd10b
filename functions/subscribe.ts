import { SesMailer } from '../shared/adapters/mail/ses-mailer.ts';
import { Newsletter } from '../shared/newsletter.ts';
import { sesClient } from '../shared/runtime/ses-client.ts';
import { apiHandler } from './http/api-handler.ts';

Newsletter.configure({ mailer: new SesMailer(sesClient()) });

/** `POST /subscribe`: the key is optional; without it the public-form rules apply. */
export const handler = apiHandler('subscribe', (params, context) =>
  Newsletter.subscribe(params, context),
);
