import { DynamoSubscriberDirectory } from '../shared/adapters/store/dynamo-subscriber-directory.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import {
  deleteV2Subscriber,
  getV2Subscriber,
  saveV2Subscriber,
} from '../shared/operations/v2/v2-subscribers.ts';
import { dynamoDocumentClient } from '../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { engagementErasure } from '../shared/runtime/store.ts';
import { ok } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-subscriber.ts';

const { runtime, deps: table, keyCheck } = v2Function();
// A deletion erases the subscriber's opens and clicks too ([engagement.erase]).
const deps = {
  ...table,
  directory: new DynamoSubscriberDirectory(dynamoDocumentClient(), readEnvironment().tableName),
  engagement: engagementErasure(readEnvironment()),
};

/** v2 `/subscribers/{id}` (digits) or `/subscribers/{email}`: read, change or create, delete. */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async (params) =>
    ok(await runOperation(deps, 'v2_subscriber', () => getV2Subscriber(deps, String(params.id)))),
  PUT: async (params, caller) => {
    const result = await runOperation(deps, 'v2_save_subscriber', () =>
      saveV2Subscriber(deps, params, caller, String(params.id)),
    );
    if (isNewsletterError(result)) return result;
    return { status: result.created ? 201 : 200, body: result.subscriber };
  },
  DELETE: async (params) =>
    ok(
      await runOperation(deps, 'v2_delete_subscriber', () =>
        deleteV2Subscriber(deps, String(params.id)),
      ),
    ),
});
