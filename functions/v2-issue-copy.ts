import { isNewsletterError } from '../shared/domain/errors.ts';
import { copyNewsletterIssue } from '../shared/operations/campaign/save-newsletter.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf, savedAnswer } from '../shared/operations/v2/v2-issues.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issue-copy.ts';

const { runtime, keyCheck, campaignDeps: deps } = v2CampaignFunction();

/** v2 `POST /issues/{id}/copy` (ours): a new draft from an issue, as `newsletters copy`. */
export const handler = v2Handler(route, runtime, keyCheck, {
  POST: async (params) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    const saved = savedAnswer(
      await runOperation(deps, 'copy_newsletter', () => copyNewsletterIssue(deps, id)),
    );
    return isNewsletterError(saved) ? saved : { status: 201, body: saved };
  },
});
