import { DynamoSubscriberDirectory } from '../shared/adapters/store/dynamo-subscriber-directory.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { createV2List } from '../shared/operations/v2/v2-list-writes.ts';
import { listV2Lists } from '../shared/operations/v2/v2-settings-reads.ts';
import { dynamoDocumentClient } from '../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { ssmClient } from '../shared/runtime/ssm-client.ts';
import { collection } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-lists.ts';

const { runtime, deps: table, keyCheck } = v2Function();
const environment = readEnvironment();
const deps = {
  ...table,
  members: new DynamoSubscriberDirectory(dynamoDocumentClient(), environment.tableName),
};
const lists = { ssm: ssmClient(), parameter: environment.settingsParameter };

/** v2 `GET /lists` (every list, read key) and `POST /lists` (ours: a new list, write key). */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async (params) =>
    collection(await runOperation(deps, 'v2_lists', () => listV2Lists(deps, params))),
  POST: async (params) => {
    const created = await runOperation(deps, 'create_list', () => createV2List(lists, params));
    return isNewsletterError(created) ? created : { status: 201, body: created };
  },
});
