import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { CampaignDependencies } from '../../shared/operations/campaign/campaign-dependencies.ts';
import { startScheduledSend } from '../../shared/operations/campaign/schedule-campaign.ts';
import { campaignQueue, campaignStore } from '../../shared/runtime/campaign-clients.ts';
import { readCampaignEnvironment, readEnvironment } from '../../shared/runtime/environment.ts';
import { tableFunction } from '../http/table-function.ts';

const { runtime, deps } = tableFunction({ background: true });
const starter: CampaignDependencies = {
  ...deps,
  campaigns: campaignStore(readEnvironment()),
  queue: campaignQueue(readCampaignEnvironment()),
};

/**
 * Invoked by an issue's EventBridge Scheduler schedule with the schedule's input: starts the
 * send unless the schedule fires too late, or for a time the issue no longer has
 * ([campaign.schedule], [campaign.schedule-late]). It never throws for those: a retry by the
 * scheduler would decide the same.
 */
export const handler = middy(async (event: unknown, _context: Context) => {
  try {
    const outcome = await startScheduledSend(starter, event);
    runtime.log.info('scheduled_send', { ...outcome });
    return outcome;
  } finally {
    if (runtime.metricsPublisher.hasStoredMetrics())
      runtime.metricsPublisher.publishStoredMetrics();
  }
}).use(injectLambdaContext(runtime.logger, { resetKeys: true }));
