import type { ChunkMessage, PlannerMessage } from '../../domain/campaign/work-messages.ts';

/**
 * The queues a campaign's work travels on (docs/storage.md, "Campaigns"): the planner's FIFO
 * queue, where the pages and walks of one campaign follow each other one at a time, and the
 * workers' queue of recipients to send to. Unavailability is thrown as a DependencyError.
 */
export interface CampaignQueue {
  /** Queues planner work in the campaign's message group, deduplicated by what it is. */
  plan(message: PlannerMessage): Promise<void>;
  /** Queues recipients for the workers, visible after `delaySeconds` (at most 900). */
  send(chunks: readonly ChunkMessage[], delaySeconds?: number): Promise<void>;
}
