import { runOperation } from '../shared/operations/run-operation.ts';
import { listV2Lists } from '../shared/operations/v2/v2-settings-reads.ts';
import { collection } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';

const { runtime, deps, keyCheck } = v2Function();

/** v2 `GET /lists`: every list, a read key needed. */
export const handler = v2Handler('v2-lists', runtime, keyCheck, {
  GET: async (params) =>
    collection(await runOperation(deps, 'v2_lists', () => listV2Lists(deps, params))),
});
