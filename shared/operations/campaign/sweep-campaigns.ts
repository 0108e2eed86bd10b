import type { CampaignRecord } from '../../domain/campaign/campaign.ts';
import { isRunComplete } from '../../domain/campaign/campaign.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';
import { completeRun } from './finish-run.ts';
import { reportOverdueSchedules } from './overdue-schedules.ts';
import { restartWork } from './restart-work.ts';

/**
 * A campaign with no worker activity for this long is repaired: longer than the workers'
 * queue keeps a message of a dead invocation hidden, and than the longest backoff of work put
 * back after a throttle, so healthy work is never doubled.
 */
export const REPAIR_AFTER_MS = 6 * 60_000;
/** Sending campaigns looked at per sweep: the newest issues. */
const SWEEP_LIMIT = 100;

/** What a sweep found. */
export interface SweepOutcome {
  readonly sending: number;
  /** Sending campaigns with no mail settled for the settings' stall minutes. */
  readonly stalled: number;
  /** Campaigns repaired: recounted from their records, ended, or their work queued again. */
  readonly repaired: number;
}

/**
 * The sweeper, every minute ([campaign.sweep]): counts sending campaigns that made no progress
 * for `campaign.stall_minutes` (the StalledCampaigns metric has an alarm), and repairs one
 * that saw no worker at all for REPAIR_AFTER_MS. Its counts are recomputed from its recipient
 * records (a worker that died took its uncounted outcomes with it); if every record is settled
 * the run ends, otherwise its planning goes on from the campaign's cursor and its unsent
 * recipients are queued again. Queueing a recipient twice is harmless: only one claim wins.
 */
export async function sweepCampaigns(deps: CampaignDependencies): Promise<SweepOutcome> {
  const settings = await deps.settings();
  const ids = await deps.campaigns.campaignsWithStatus(['sending'], SWEEP_LIMIT);
  const now = deps.now().getTime();
  let stalled = 0;
  let repaired = 0;
  for (const id of ids) {
    const campaign = await deps.campaigns.getCampaign(id);
    if (campaign?.status !== 'sending') continue;
    const since = (value: string | undefined): number =>
      now - Date.parse(value ?? campaign.started_at ?? new Date(now).toISOString());
    if (since(campaign.progress_at) >= settings.campaign.stall_minutes * 60_000) {
      stalled += 1;
      deps.log.warn('campaign_stalled', {
        newsletter_id: id,
        since: campaign.progress_at ?? campaign.started_at ?? null,
      });
    }
    if (since(campaign.active_at) >= REPAIR_AFTER_MS) {
      await repair(deps, campaign);
      repaired += 1;
    }
  }
  // Published every sweep, zero included, so the alarm sees a value and not missing data.
  deps.metrics.count('StalledCampaigns', stalled);
  await reportOverdueSchedules(deps, settings);
  return { sending: ids.length, stalled, repaired };
}

async function repair(deps: CampaignDependencies, campaign: CampaignRecord): Promise<void> {
  const counts = await deps.campaigns.countRecipients(campaign.id);
  const recounted = await deps.campaigns.updateCampaign(campaign.id, {
    expect: { statuses: ['sending'], run: campaign.run },
    set: {
      sent: counts.sent,
      skipped: counts.skipped,
      failed: counts.failed,
      total: counts.pending + counts.sending + counts.sent + counts.skipped + counts.failed,
      active_at: deps.now().toISOString(),
    },
  });
  if (!recounted) return;
  deps.log.warn('campaign_repaired', {
    newsletter_id: campaign.id,
    run: campaign.run,
    pending: counts.pending,
    sending: counts.sending,
    counted_before: campaign.sent + campaign.skipped + campaign.failed,
    counted_now: counts.sent + counts.skipped + counts.failed,
  });
  if (isRunComplete(recounted)) await completeRun(deps, recounted);
  else await restartWork(deps, recounted.id, ['sending']);
}
