import { runOperation } from '../shared/operations/run-operation.ts';
import { subscribe } from '../shared/operations/subscribe.ts';
import { apiHandler } from './http/api-handler.ts';
import { BROWSER_FORMS } from './http/form-answer.ts';
import { jsonResponse } from './http/responses.ts';
import { tableFunction } from './http/table-function.ts';
import { route } from './route-table/subscribe.ts';

const { runtime, parameters, deps } = tableFunction();

/** `POST /subscribe`: the key is optional; without it the public-form rules apply. */
export const handler = apiHandler(
  route,
  runtime,
  { apiKey: parameters.apiKey, settings: parameters.settings },
  (params, context) => runOperation(deps, 'subscribe', () => subscribe(deps, params, context)),
  jsonResponse,
  BROWSER_FORMS,
);
