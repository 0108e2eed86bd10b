import type { CampaignMailer } from '../../adapters/mail/campaign-mailer-port.ts';
import type { CampaignQueue } from '../../adapters/queue/campaign-queue-port.ts';
import type { CampaignStore } from '../../adapters/store/campaign-store-port.ts';
import type { Dependencies } from '../dependencies.ts';

/** What every campaign operation needs: the campaign store, the queues, settings, clock, logs. */
export interface CampaignDependencies
  extends Pick<Dependencies, 'settings' | 'now' | 'log' | 'metrics'> {
  readonly campaigns: CampaignStore;
  readonly queue: CampaignQueue;
}

/** What the planner needs besides: SES's quota, for the rate a run may send at. */
export interface PlannerDependencies extends CampaignDependencies {
  readonly quota: Pick<CampaignMailer, 'maxSendRate'>;
  /** Subscribers read per planning page, and records per walk page (defaults: 1,000 each). */
  readonly pageSizes?: {
    readonly plan?: number;
    readonly walk?: number;
    /** Recipients per chunk (CHUNK_SIZE unless a test wants small ones). */
    readonly chunk?: number;
  };
}

/** Waiting, behind a port so tests can run a worker's pacing on a clock they control. */
export interface Clock {
  /** Epoch ms. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** The real clock. */
export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
