import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { CampaignDependencies } from '../../shared/operations/campaign/campaign-dependencies.ts';
import { sweepCampaigns } from '../../shared/operations/campaign/sweep-campaigns.ts';
import { campaignQueue, campaignStore } from '../../shared/runtime/campaign-clients.ts';
import { readCampaignEnvironment, readEnvironment } from '../../shared/runtime/environment.ts';
import { tableFunction } from '../http/table-function.ts';

const { runtime, deps } = tableFunction({ background: true });
const sweeper: CampaignDependencies = {
  ...deps,
  campaigns: campaignStore(readEnvironment()),
  queue: campaignQueue(readCampaignEnvironment()),
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
