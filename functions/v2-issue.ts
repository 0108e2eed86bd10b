import { isNewsletterError } from '../shared/domain/errors.ts';
import { editNewsletterIssue } from '../shared/operations/campaign/save-newsletter.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf, issueInput, savedAnswer } from '../shared/operations/v2/v2-issues.ts';
import { ok } from './http/v2-answers.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issue.ts';

const { runtime, keyCheck, campaignDeps: deps } = v2CampaignFunction();

/** v2 `PUT /issues/{id}` (ours): edits an issue, by the operation `newsletters edit` runs. */
export const handler = v2Handler(route, runtime, keyCheck, {
  PUT: async (params) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    const input = issueInput(params);
    if (isNewsletterError(input)) return input;
    return ok(
      savedAnswer(
        await runOperation(deps, 'edit_newsletter', () => editNewsletterIssue(deps, id, input)),
      ),
    );
  },
});
