import { runOperation } from '../shared/operations/run-operation.ts';
import { getV2Newsletter } from '../shared/operations/v2/v2-newsletters.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { campaignStore } from '../shared/runtime/store.ts';
import { ok } from './http/v2-answers.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-newsletter.ts';

const { runtime, deps: table, keyCheck } = v2Function();
const deps = { ...table, campaigns: campaignStore(readEnvironment()) };

/** v2 `GET /newsletters/{id}`. */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async (params, caller) =>
    ok(
      await runOperation(deps, 'v2_newsletter', () =>
        getV2Newsletter(deps, params.id, caller.trusted),
      ),
    ),
});
