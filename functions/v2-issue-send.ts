import { SesSendQuota } from '../shared/adapters/mail/ses-send-quota.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { sendNewsletter } from '../shared/operations/campaign/control-campaign.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf, sendFlags, toV2Issue } from '../shared/operations/v2/v2-issues.ts';
import { campaignQueue } from '../shared/runtime/campaign-clients.ts';
import { readCampaignEnvironment } from '../shared/runtime/environment.ts';
import { sesClient } from '../shared/runtime/ses-client.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issue-send.ts';

const {
  runtime,
  keyCheck,
  campaignDeps: deps,
} = v2CampaignFunction(campaignQueue(readCampaignEnvironment()));
// Only GetSendQuota, for the daily-quota question before a send: this function sends no mail.
const quota = new SesSendQuota(sesClient());

/**
 * v2 `POST /issues/{id}/send` (ours): starts the send `newsletters send` starts; `new_only`
 * sends to the new. A send that does not fit in SES's daily quota is refused (409
 * `over_quota`) until `accept_quota` is true, as the function class does ([campaign.quota]).
 */
export const handler = v2Handler(route, runtime, keyCheck, {
  POST: async (params, caller) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    const flags = sendFlags(params);
    if (isNewsletterError(flags)) return flags;
    const started = await runOperation(deps, 'send_newsletter', () =>
      sendNewsletter(
        deps,
        { id, newOnly: flags.newOnly, quota, acceptQuota: flags.acceptQuota },
        caller.apiRoot ? { apiRoot: caller.apiRoot } : {},
      ),
    );
    return isNewsletterError(started) ? started : { body: toV2Issue(started) };
  },
});
