import { deleteSubscriber } from '../shared/operations/delete-subscriber.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { apiHandler } from './http/api-handler.ts';
import { tableFunction } from './http/table-function.ts';

const { runtime, parameters, deps } = tableFunction();

/** `POST /subscribers/delete`: needs the key. */
export const handler = apiHandler(
  'subscribers-delete',
  runtime,
  { apiKey: parameters.apiKey },
  (params) => runOperation(deps, 'delete_subscriber', () => deleteSubscriber(deps, params)),
);
