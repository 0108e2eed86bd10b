import { runOperation } from '../shared/operations/run-operation.ts';
import { listV2Newsletters } from '../shared/operations/v2/v2-newsletters.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { campaignStore } from '../shared/runtime/store.ts';
import { collection } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-newsletters.ts';

const { runtime, deps: table, keyCheck } = v2Function();
const deps = { ...table, campaigns: campaignStore(readEnvironment()) };

/** v2 `GET /newsletters`: public issues for anyone, every issue for a key. */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async (params, caller) =>
    collection(
      await runOperation(deps, 'v2_newsletters', () =>
        listV2Newsletters(deps, params, caller.trusted),
      ),
    ),
});
