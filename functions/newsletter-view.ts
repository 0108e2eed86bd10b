import { viewNewsletter } from '../shared/operations/campaign/view-newsletter.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { campaignStore } from '../shared/runtime/store.ts';
import { apiHandler } from './http/api-handler.ts';
import { createFunctionRuntime } from './http/function-runtime.ts';
import { webVersionResponse } from './http/pages/web-version-page.ts';

const environment = readEnvironment();
const runtime = createFunctionRuntime();
// No key, no settings, no subscriber: the page reads the issue and its content only.
const deps = { campaigns: campaignStore(environment), log: runtime.log };

/** `GET /newsletters/{id}/view`: the web version of a sent, public issue, or a JSON 404. */
export const handler = apiHandler(
  'newsletter-view',
  runtime,
  {},
  (params, context) =>
    runOperation(deps, 'view_newsletter', () =>
      viewNewsletter(deps, params.id, context.apiRootPath ?? ''),
    ),
  webVersionResponse,
);
