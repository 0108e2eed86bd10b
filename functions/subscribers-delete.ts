import { Newsletter } from '../shared/newsletter.ts';
import { apiHandler } from './http/api-handler.ts';

/** `POST /subscribers/delete`: needs the key. */
export const handler = apiHandler('subscribers-delete', (params) =>
  Newsletter.delete_subscriber(params),
);
