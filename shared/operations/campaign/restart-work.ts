import type { CampaignRecord, PauseReason } from '../../domain/campaign/campaign.ts';
import type { NewsletterIssueStatus } from '../../domain/newsletter-issue.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';

/** How a restart goes: which pause it acts on, which run, and whether it waits its turn. */
export interface RestartOptions {
  /** Only a campaign paused for this reason (the sweeper's resume after the quota). */
  readonly pauseReason?: PauseReason;
  /** Only while the campaign is still on this run (the sweeper's repair). */
  readonly run?: number;
  /**
   * It waits for its turn behind another campaign ([campaign.overlap]): set sending, with
   * nothing queued until its turn comes (campaign-turns.ts).
   */
  readonly wait?: boolean;
}

/**
 * Sets a campaign sending again and queues its work from its records: the planning from the
 * page it reached, and a walk over the recipients planned so far, under a new walk generation
 * (older walks stop). The continuation of the planning is queued first: a page whose records
 * were written but not committed is planned again before the walk can queue any of them.
 * Undefined when the campaign was in none of `from`.
 */
export async function restartWork(
  deps: Pick<CampaignDependencies, 'campaigns' | 'queue' | 'now'>,
  id: number,
  from: readonly NewsletterIssueStatus[],
  options: RestartOptions = {},
): Promise<CampaignRecord | undefined> {
  const now = deps.now().toISOString();
  const campaign = await deps.campaigns.updateCampaign(id, {
    expect: {
      statuses: from,
      ...(options.pauseReason ? { pauseReason: options.pauseReason } : {}),
      ...(options.run === undefined ? {} : { run: options.run }),
    },
    set: {
      status: 'sending',
      consecutive_failures: 0,
      active_at: now,
      // The walk feeds the workers' queue afresh from the first chunk ([campaign.feed]).
      fed_after: 0,
      fed_chunks: 0,
      done_chunks: 0,
      ...(options.wait ? { waiting_since: now } : {}),
    },
    add: { walk: 1 },
    // A recount follows once the restarted work is quiet (one under way goes on unless the
    // restarted work settles something, which makes it start again).
    remove: ['pause_reason', 'recounted_at', ...(options.wait ? [] : ['waiting_since' as const])],
  });
  if (!campaign) return undefined;
  if (!options.wait) await queueWork(deps, campaign);
  return campaign;
}

/**
 * Queues a campaign's work as it stands: its planning from the page it reached (when not
 * done), and a walk of the chunks planned so far.
 */
export async function queueWork(
  deps: Pick<CampaignDependencies, 'queue'>,
  campaign: CampaignRecord,
): Promise<void> {
  if (!campaign.plan_done)
    await deps.queue.plan({
      kind: 'plan',
      newsletter_id: campaign.id,
      run: campaign.run,
      page: campaign.plan_page,
      after: campaign.plan_cursor,
      walk: campaign.walk,
    });
  await deps.queue.plan({
    kind: 'walk',
    newsletter_id: campaign.id,
    run: campaign.run,
    walk: campaign.walk,
    after: 0,
  });
}
