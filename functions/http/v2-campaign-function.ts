import type { CampaignQueue } from '../../shared/adapters/queue/campaign-queue-port.ts';
import type { CampaignDependencies } from '../../shared/operations/campaign/campaign-dependencies.ts';
import type { SaveDependencies } from '../../shared/operations/campaign/save-newsletter.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { campaignStore } from '../../shared/runtime/store.ts';
import { type V2Function, v2Function } from './v2-function.ts';

/** Work a route without the planner's queue never queues; a call is a wiring bug. */
const NO_QUEUE: CampaignQueue = {
  plan: () => Promise.reject(new Error('this function has no campaign queue')),
  send: () => Promise.reject(new Error('this function has no campaign queue')),
};

/**
 * The wiring of a v2 issue route (call once, at module scope): the key check, the campaign
 * store, and the planner's queue only for a route that queues work, whose handler module
 * passes it (`campaignQueue` of shared/runtime/campaign-clients.ts) and whose function alone
 * gets the queue's URL and grant (functions/route-table.ts). Passed in rather than chosen
 * here, so that only those functions bundle the SQS client.
 */
export function v2CampaignFunction(queue: CampaignQueue = NO_QUEUE): V2Function & {
  readonly campaignDeps: CampaignDependencies & SaveDependencies;
} {
  const base = v2Function();
  return {
    ...base,
    campaignDeps: {
      ...base.deps,
      campaigns: campaignStore(readEnvironment()),
      queue,
    },
  };
}
