import type { CampaignRecord, PauseReason } from '../../domain/campaign/campaign.ts';
import type { NewsletterIssueStatus } from '../../domain/newsletter-issue.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';

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
  /** Only a campaign paused for this reason (the sweeper's resume after the quota). */
  pauseReason?: PauseReason,
  /** Only while the campaign is still on this run (the sweeper's repair). */
  run?: number,
): Promise<CampaignRecord | undefined> {
  const campaign = await deps.campaigns.updateCampaign(id, {
    expect: {
      statuses: from,
      ...(pauseReason ? { pauseReason } : {}),
      ...(run === undefined ? {} : { run }),
    },
    set: { status: 'sending', consecutive_failures: 0, active_at: deps.now().toISOString() },
    add: { walk: 1 },
    // A recount follows once the restarted work is quiet (one under way goes on unless the
    // restarted work settles something, which makes it start again).
    remove: ['pause_reason', 'recounted_at'],
  });
  if (!campaign) return undefined;
  if (!campaign.plan_done)
    await deps.queue.plan({
      kind: 'plan',
      newsletter_id: id,
      run: campaign.run,
      page: campaign.plan_page,
      after: campaign.plan_cursor,
      walk: campaign.walk,
    });
  await deps.queue.plan({
    kind: 'walk',
    newsletter_id: id,
    run: campaign.run,
    walk: campaign.walk,
    after: 0,
  });
  return campaign;
}
