import { isNewsletterError } from '../shared/domain/errors.ts';
import { testNewsletter } from '../shared/operations/campaign/test-send.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf, testAddresses } from '../shared/operations/v2/v2-issues.ts';
import { campaignQueue } from '../shared/runtime/campaign-clients.ts';
import { readCampaignEnvironment } from '../shared/runtime/environment.ts';
import { ok } from './http/v2-answers.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issue-test.ts';

const {
  runtime,
  keyCheck,
  campaignDeps: deps,
} = v2CampaignFunction(campaignQueue(readCampaignEnvironment()));

/** v2 `POST /issues/{id}/test` (ours): `to` gets the issue as a test, as `newsletters test`. */
export const handler = v2Handler(route, runtime, keyCheck, {
  POST: async (params, caller) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    return ok(
      await runOperation(deps, 'test_newsletter', () =>
        testNewsletter(
          deps,
          id,
          testAddresses(params),
          caller.apiRoot ? { apiRoot: caller.apiRoot } : {},
        ),
      ),
    );
  },
});
