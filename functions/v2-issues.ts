import { isNewsletterError } from '../shared/domain/errors.ts';
import { createNewsletterIssue } from '../shared/operations/campaign/save-newsletter.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueInput, savedAnswer } from '../shared/operations/v2/v2-issues.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issues.ts';

const { runtime, keyCheck, campaignDeps: deps } = v2CampaignFunction();

/** v2 `POST /issues` (ours): a new draft, by the operation `newsletters create` runs. */
export const handler = v2Handler(route, runtime, keyCheck, {
  POST: async (params) => {
    const input = issueInput(params);
    if (isNewsletterError(input)) return input;
    const saved = savedAnswer(
      await runOperation(deps, 'create_newsletter', () => createNewsletterIssue(deps, input)),
    );
    return isNewsletterError(saved) ? saved : { status: 201, body: saved };
  },
});
