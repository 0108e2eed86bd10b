import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-test.ts';

const { runtime, keyCheck } = v2Function();

/** v2 `GET /test`: `{}` for a working read key, as the original; the key check is the test. */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async () => ({ body: {} }),
});
