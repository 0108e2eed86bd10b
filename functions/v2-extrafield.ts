import { runOperation } from '../shared/operations/run-operation.ts';
import { getV2ExtraField } from '../shared/operations/v2/v2-settings-reads.ts';
import { ok } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-extrafield.ts';

const { runtime, deps, keyCheck } = v2Function();

/** v2 `GET /extrafields/{id}`. */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async (params) =>
    ok(await runOperation(deps, 'v2_extrafield', () => getV2ExtraField(deps, params.id))),
});
