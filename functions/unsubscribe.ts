import { runOperation } from '../shared/operations/run-operation.ts';
import { unsubscribe } from '../shared/operations/unsubscribe.ts';
import { apiHandler } from './http/api-handler.ts';
import { tableFunction } from './http/table-function.ts';
import { route } from './route-table/unsubscribe.ts';

const { runtime, parameters, deps } = tableFunction();

/** `POST /unsubscribe`: needs the key. */
export const handler = apiHandler(route, runtime, { apiKey: parameters.apiKey }, (params) =>
  runOperation(deps, 'unsubscribe', () => unsubscribe(deps, params)),
);
