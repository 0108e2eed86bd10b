import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { SESClient } from '@aws-sdk/client-ses';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { SesSendQuota } from '../../shared/adapters/mail/ses-send-quota.ts';
import {
  type SweeperDependencies,
  sweepCampaigns,
} from '../../shared/operations/campaign/sweep-campaigns.ts';
import { campaignQueue, campaignStore } from '../../shared/runtime/campaign-clients.ts';
import { CLIENT_OPTIONS } from '../../shared/runtime/client-options.ts';
import { readCampaignEnvironment, readEnvironment } from '../../shared/runtime/environment.ts';
import { tableFunction } from '../http/table-function.ts';

const { runtime, deps } = tableFunction({ background: true });
const sweeper: SweeperDependencies = {
  ...deps,
  campaigns: campaignStore(readEnvironment()),
  queue: campaignQueue(readCampaignEnvironment()),
  // Only GetSendQuota, for campaigns paused on the daily quota: no mail, no configuration set.
  quota: new SesSendQuota(new SESClient(CLIENT_OPTIONS)),
  // The last send sample of each sending campaign, kept by this container between sweeps.
  sendSamples: new Map(),
};

/** Every minute (an EventBridge rule): stalled campaigns counted, dead ones repaired ([campaign.sweep]). */
export const handler = middy(async (_event: ScheduledEvent, _context: Context) => {
  try {
    const outcome = await sweepCampaigns(sweeper);
    runtime.log.info('sweep', { ...outcome });
    return outcome;
  } finally {
    if (runtime.metricsPublisher.hasStoredMetrics())
      runtime.metricsPublisher.publishStoredMetrics();
  }
}).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
