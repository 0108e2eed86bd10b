import { SesSendQuota } from '../shared/adapters/mail/ses-send-quota.ts';
import { SesSendStatistics } from '../shared/adapters/mail/ses-send-statistics.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { accountHealth } from '../shared/operations/account-health.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { sesClient } from '../shared/runtime/ses-client.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-account.ts';

const { runtime, deps, keyCheck } = v2Function();
// Only GetSendQuota and GetSendStatistics: this function sends no mail.
const sources = {
  quota: new SesSendQuota(sesClient()),
  statistics: new SesSendStatistics(sesClient()),
  now: () => new Date(),
};

/**
 * v2 `GET /account` (ours): SES's quota and rate, and the bounce and complaint rates of the
 * last two weeks against the levels SES reviews and pauses an account at ([v2.account]).
 */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async () => {
    const health = await runOperation(deps, 'account_health', () => accountHealth(sources));
    return isNewsletterError(health) ? health : { body: health };
  },
});
