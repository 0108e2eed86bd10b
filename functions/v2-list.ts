import { runOperation } from '../shared/operations/run-operation.ts';
import { editV2List } from '../shared/operations/v2/v2-list-writes.ts';
import { getV2List } from '../shared/operations/v2/v2-settings-reads.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { ssmClient } from '../shared/runtime/ssm-client.ts';
import { ok } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';

const { runtime, deps, keyCheck } = v2Function();
const lists = { ssm: ssmClient(), parameter: readEnvironment().settingsParameter };

/** v2 `GET /lists/{id}` (read key) and `PUT /lists/{id}` (ours: rename, flags; write key). */
export const handler = v2Handler('v2-list', runtime, keyCheck, {
  GET: async (params) => ok(await runOperation(deps, 'v2_list', () => getV2List(deps, params.id))),
  PUT: async (params) =>
    ok(await runOperation(deps, 'edit_list', () => editV2List(lists, params.id, params))),
});
