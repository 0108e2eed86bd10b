import { deleteSubscriber } from '../shared/operations/delete-subscriber.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { engagementErasure } from '../shared/runtime/store.ts';
import { apiHandler } from './http/api-handler.ts';
import { tableFunction } from './http/table-function.ts';
import { route } from './route-table/subscribers-delete.ts';

const { runtime, parameters, deps: tableDeps } = tableFunction();
// A deletion erases the subscriber's opens and clicks too ([engagement.erase]).
const deps = {
  ...tableDeps,
  engagement: engagementErasure(readEnvironment()),
};

/** `POST /subscribers/delete`: needs the key. */
export const handler = apiHandler(route, runtime, { apiKey: parameters.apiKey }, (params) =>
  runOperation(deps, 'delete_subscriber', () => deleteSubscriber(deps, params)),
);
