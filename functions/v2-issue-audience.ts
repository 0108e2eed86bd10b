import { SesSendQuota } from '../shared/adapters/mail/ses-send-quota.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { issueAudience } from '../shared/operations/campaign/issue-audience.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf, sendFlags } from '../shared/operations/v2/v2-issues.ts';
import { sesClient } from '../shared/runtime/ses-client.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issue-audience.ts';

const { runtime, keyCheck, campaignDeps: deps } = v2CampaignFunction();
// Only GetSendQuota: the same question `send` asks before it starts.
const quota = new SesSendQuota(sesClient());

/**
 * v2 `GET /issues/{id}/audience` (ours): how many the issue's send would reach now (`new_only`:
 * those it has not reached), and whether that fits SES's daily quota, with the sentence `send`
 * would answer ([v2.audience]).
 */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async (params) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    const flags = sendFlags({ new_only: params.new_only });
    if (isNewsletterError(flags)) return flags;
    const audience = await runOperation(deps, 'issue_audience', () =>
      issueAudience(deps, id, flags.newOnly, quota),
    );
    return isNewsletterError(audience) ? audience : { body: audience };
  },
});
