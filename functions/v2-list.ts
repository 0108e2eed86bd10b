import { DynamoListUsage } from '../shared/adapters/store/dynamo-list-usage.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { deleteV2List, editV2List } from '../shared/operations/v2/v2-list-writes.ts';
import { getV2List } from '../shared/operations/v2/v2-settings-reads.ts';
import { dynamoDocumentClient } from '../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { ssmClient } from '../shared/runtime/ssm-client.ts';
import { ok } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-list.ts';

const { runtime, deps, keyCheck } = v2Function();
const environment = readEnvironment();
const lists = { ssm: ssmClient(), parameter: environment.settingsParameter };
// What a deletion waits for: issues still to be sent that name the list.
const usage = new DynamoListUsage(dynamoDocumentClient(), environment.tableName);

/**
 * v2 `GET /lists/{id}` (read key), and ours with a write key: `PUT /lists/{id}` (rename,
 * flags) and `DELETE /lists/{id}` ([v2.lists-delete]).
 */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async (params) => ok(await runOperation(deps, 'v2_list', () => getV2List(deps, params.id))),
  PUT: async (params) =>
    ok(await runOperation(deps, 'edit_list', () => editV2List(lists, params.id, params))),
  DELETE: async (params) => {
    const deleted = await runOperation(deps, 'delete_list', () =>
      deleteV2List({ ...lists, usage }, params.id),
    );
    return isNewsletterError(deleted) ? deleted : { body: deleted };
  },
});
