import { listSubscribers } from '../shared/operations/list-subscribers.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { apiHandler } from './http/api-handler.ts';
import { tableFunction } from './http/table-function.ts';
import { route } from './route-table/subscribers-list.ts';

const { runtime, parameters, deps } = tableFunction();

/** `POST /subscribers`: needs the key. */
export const handler = apiHandler(route, runtime, { apiKey: parameters.apiKey }, () =>
  runOperation(deps, 'subscribers', () => listSubscribers(deps)),
);
