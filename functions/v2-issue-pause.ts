import { isNewsletterError } from '../shared/domain/errors.ts';
import { pauseNewsletter } from '../shared/operations/campaign/control-campaign.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf, toV2Issue } from '../shared/operations/v2/v2-issues.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issue-pause.ts';

const { runtime, keyCheck, campaignDeps: deps } = v2CampaignFunction();

/** v2 `POST /issues/{id}/pause` (ours): pauses a sending issue, as `newsletters pause`. */
export const handler = v2Handler(route, runtime, keyCheck, {
  POST: async (params) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    const done = await runOperation(deps, 'pause_newsletter', () => pauseNewsletter(deps, id));
    return isNewsletterError(done) ? done : { body: toV2Issue(done) };
  },
});
