import { Newsletter } from '../shared/newsletter.ts';
import { apiHandler } from './http/api-handler.ts';

/** `POST /subscribers/add`: needs the key. */
export const handler = apiHandler('subscribers-add', (params) => Newsletter.add_subscriber(params));
