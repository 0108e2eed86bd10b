import { addSubscriber } from '../shared/operations/add-subscriber.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { apiHandler } from './http/api-handler.ts';
import { tableFunction } from './http/table-function.ts';
import { route } from './route-table/subscribers-add.ts';

const { runtime, parameters, deps } = tableFunction();

/** `POST /subscribers/add`: needs the key. */
export const handler = apiHandler(
  route,
  runtime,
  { apiKey: parameters.apiKey },
  (params, context) =>
    runOperation(deps, 'add_subscriber', () => addSubscriber(deps, params, context)),
);
