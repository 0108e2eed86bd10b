import type { CampaignRecord } from './campaign.ts';
import { isAtWork } from './campaign.ts';
import { CHUNK_SIZE } from './work-messages.ts';

/**
 * How much of a campaign's planned work stands in the workers' queue at once ([campaign.feed]):
 * about half a minute of sending at its rate. Planning goes on to the end at once (the total is
 * known early), but its chunks are queued only as the ones before them are done, so that the
 * chunks of several campaigns sending at once take turns in the one queue of workers: a
 * campaign started while another's million recipients are planned waits about half a minute
 * for its first mail, and then shares the rate ([campaign.overlap]). The workers ask for more
 * when half of it is left, a quarter of a minute before their queue would run dry; the ask
 * takes a second or two.
 */
export const FEED_SECONDS = 30;
/** Fewest chunks queued ahead, whatever the rate: two for each of the default two workers. */
export const FEED_MIN_CHUNKS = 4;

/** Chunks of a campaign queued at once at most, for its rate (mails per second). */
export function feedHorizon(rate: number | undefined): number {
  const perSecond = rate !== undefined && rate > 0 ? rate : 1;
  return Math.max(FEED_MIN_CHUNKS, Math.ceil((perSecond * FEED_SECONDS) / CHUNK_SIZE));
}

/** Chunks queued in this walk and not yet done: what stands in the workers' queue. */
export function queuedChunks(campaign: Pick<CampaignRecord, 'fed_chunks' | 'done_chunks'>): number {
  return Math.max(0, campaign.fed_chunks - campaign.done_chunks);
}

/**
 * Whether the campaign wants more of its planned chunks queued: at work, with chunks planned
 * beyond those queued, and no more than half its horizon left in the queue.
 */
export function wantsFeed(
  campaign:
    | Pick<
        CampaignRecord,
        | 'status'
        | 'waiting_since'
        | 'rate'
        | 'plan_cursor'
        | 'fed_after'
        | 'fed_chunks'
        | 'done_chunks'
      >
    | undefined,
): boolean {
  if (!isAtWork(campaign)) return false;
  return (
    campaign.fed_after < campaign.plan_cursor &&
    queuedChunks(campaign) <= feedHorizon(campaign.rate) / 2
  );
}
