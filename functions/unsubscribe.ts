import { Newsletter } from '../shared/newsletter.ts';
import { apiHandler } from './http/api-handler.ts';

/** `POST /unsubscribe`: needs the key. */
export const handler = apiHandler('unsubscribe', (params) => Newsletter.unsubscribe(params));
