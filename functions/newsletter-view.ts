import { viewNewsletter } from '../shared/operations/campaign/view-newsletter.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { serviceParameters } from '../shared/runtime/parameters.ts';
import { campaignStore } from '../shared/runtime/store.ts';
import { apiHandler } from './http/api-handler.ts';
import { createFunctionRuntime } from './http/function-runtime.ts';
import { webVersionResponse } from './http/pages/web-version-page.ts';
import { route } from './route-table/newsletter-view.ts';

const environment = readEnvironment();
const runtime = createFunctionRuntime();
// No key, no subscriber: the page reads the issue, its content, and the settings only for
// what an empty tag reads as ([campaign.empty-values]).
const deps = {
  campaigns: campaignStore(environment),
  settings: serviceParameters(environment).settings,
  log: runtime.log,
};

/** `GET /newsletters/{id}/view`: the web version of a sent, public issue, or a JSON 404. */
export const handler = apiHandler(
  route,
  runtime,
  {},
  (params, context) =>
    runOperation(deps, 'view_newsletter', () =>
      viewNewsletter(deps, params.id, context.apiRootPath ?? ''),
    ),
  webVersionResponse,
);
