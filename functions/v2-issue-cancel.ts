import { isNewsletterError } from '../shared/domain/errors.ts';
import { cancelNewsletter } from '../shared/operations/campaign/control-campaign.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf, toV2Issue } from '../shared/operations/v2/v2-issues.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issue-cancel.ts';

const { runtime, keyCheck, campaignDeps: deps } = v2CampaignFunction();

/** v2 `POST /issues/{id}/cancel` (ours): cancels a scheduled, sending or paused issue, as `newsletters cancel`. */
export const handler = v2Handler(route, runtime, keyCheck, {
  POST: async (params) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    const done = await runOperation(deps, 'cancel_newsletter', () => cancelNewsletter(deps, id));
    return isNewsletterError(done) ? done : { body: toV2Issue(done) };
  },
});
