import { Newsletter } from '../shared/newsletter.ts';
import { apiHandler } from './http/api-handler.ts';

/** `POST /subscribers`: needs the key. */
export const handler = apiHandler('subscribers-list', (params) => Newsletter.subscribers(params));
