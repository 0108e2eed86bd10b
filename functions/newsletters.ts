import { Newsletter } from '../shared/newsletter.ts';
import { apiHandler } from './http/api-handler.ts';

/** `GET /newsletters`: the key is optional; with it, drafts and private issues are listed too. */
export const handler = apiHandler('newsletters', (params, context) =>
  Newsletter.newsletters(params, context),
);
