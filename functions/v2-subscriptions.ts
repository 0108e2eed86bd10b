import { isNewsletterError } from '../shared/domain/errors.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { subscribeV2 } from '../shared/operations/v2/v2-subscriptions.ts';
import { v2Function } from './http/v2-function.ts';
import { type V2Answer, v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-subscriptions.ts';

const { runtime, deps, keyCheck } = v2Function();

/** v2 `POST /subscriptions`: public (the keyless subscribe); a write key makes it trusted. */
export const handler = v2Handler(route, runtime, keyCheck, {
  POST: async (params, caller) => {
    const answer = await runOperation(deps, 'v2_subscribe', () =>
      subscribeV2(deps, params, caller),
    );
    return isNewsletterError(answer) ? answer : ({ status: 201, body: answer } satisfies V2Answer);
  },
});
