import { SESClient } from '@aws-sdk/client-ses';
import { SesSendQuota } from '../../shared/adapters/mail/ses-send-quota.ts';
import { PlannerMessageSchema } from '../../shared/domain/campaign/work-messages.ts';
import type { PlannerDependencies } from '../../shared/operations/campaign/campaign-dependencies.ts';
import { planPage, walkPage } from '../../shared/operations/campaign/plan-recipients.ts';
import { campaignQueue, campaignStore } from '../../shared/runtime/campaign-clients.ts';
import { CLIENT_OPTIONS } from '../../shared/runtime/client-options.ts';
import { readCampaignEnvironment, readEnvironment } from '../../shared/runtime/environment.ts';
import { tableFunction } from '../http/table-function.ts';
import { queueHandler } from './queue-handler.ts';

const { runtime, deps } = tableFunction({ background: true });
const environment = readEnvironment();
const planner: PlannerDependencies = {
  ...deps,
  campaigns: campaignStore(environment),
  queue: campaignQueue(readCampaignEnvironment()),
  // Only GetSendQuota: the planner sends no mail, so it carries no MIME composer.
  quota: new SesSendQuota(new SESClient(CLIENT_OPTIONS)),
};

/**
 * The planner's FIFO queue: one page of planning, or of a walk, per invocation ([campaign.plan]),
 * or a test send handed to the workers ([campaign.test-send]).
 */
export const handler = queueHandler(
  'campaign-planner',
  runtime,
  PlannerMessageSchema,
  async (message) => {
    const outcome =
      message.kind === 'plan'
        ? await planPage(planner, message)
        : message.kind === 'walk'
          ? await walkPage(planner, message)
          : // A test send is the workers' to send: the same renderer, headers, configuration set.
            await planner.queue.send([message]).then(() => 'test_queued' as const);
    return { newsletter_id: message.newsletter_id, kind: message.kind, outcome };
  },
);
