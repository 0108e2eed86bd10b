import { listNewsletters } from '../shared/operations/list-newsletters.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { apiHandler } from './http/api-handler.ts';
import { tableFunction } from './http/table-function.ts';
import { route } from './route-table/newsletters.ts';

const { runtime, parameters, deps } = tableFunction();

/** `GET /newsletters`: the key is optional; with it, drafts and private issues too. */
export const handler = apiHandler(
  route,
  runtime,
  { apiKey: parameters.apiKey },
  (_params, context) => runOperation(deps, 'newsletters', () => listNewsletters(deps, context)),
);
