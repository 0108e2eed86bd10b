import { runOperation } from '../shared/operations/run-operation.ts';
import { listV2ExtraFields } from '../shared/operations/v2/v2-settings-reads.ts';
import { collection } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-extrafields.ts';

const { runtime, deps, keyCheck } = v2Function();

/** v2 `GET /extrafields`: the profile fields, a read key needed. */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async (params) =>
    collection(await runOperation(deps, 'v2_extrafields', () => listV2ExtraFields(deps, params))),
});
