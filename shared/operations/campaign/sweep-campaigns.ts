import type { CampaignMailer } from '../../adapters/mail/campaign-mailer-port.ts';
import { recordSpaceOf } from '../../adapters/store/campaign-store-port.ts';
import type { CampaignRecord } from '../../domain/campaign/campaign.ts';
import { isRunComplete, settled } from '../../domain/campaign/campaign.ts';
import { CHUNK_SIZE } from '../../domain/campaign/work-messages.ts';
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
/**
 * A run whose every page is planned, with no mail settled for this long while its counts fall
 * short, is recounted from its records ([campaign.complete]): a worker that died took its
 * uncounted outcomes with it. Longer than any live worker goes without recording its outcomes
 * (about a second, or a send's 3 s timeout and the retries of its record).
 */
export const RECOUNT_AFTER_MS = 20_000;
/** How often a campaign paused for the daily quota asks SES whether it has room again. */
export const QUOTA_CHECK_MS = 5 * 60_000;

/** What the sweeper needs besides: SES's quota, for campaigns paused on it. */
export interface SweeperDependencies extends CampaignDependencies {
  readonly quota: Pick<CampaignMailer, 'sendQuota'>;
}

/** What a sweep found. */
export interface SweepOutcome {
  readonly sending: number;
  /** Sending campaigns with no mail settled for the settings' stall minutes. */
  readonly stalled: number;
  /** Campaigns repaired: recounted from their records, ended, or their work queued again. */
  readonly repaired: number;
  /** Quiet runs recounted, and of them those that ended. */
  readonly recounted: number;
  /** Campaigns paused for the daily quota that went on. */
  readonly resumed: number;
}

/**
 * The sweeper, every minute ([campaign.sweep]): counts sending campaigns that made no progress
 * for `campaign.stall_minutes` (the StalledCampaigns metric has an alarm), and repairs one
 * that saw no worker at all for REPAIR_AFTER_MS. Its counts are recomputed from its recipient
 * records (a worker that died took its uncounted outcomes with it); if every record is settled
 * the run ends, otherwise its planning goes on from the campaign's cursor and its unsent
 * recipients are queued again. Queueing a recipient twice is harmless: only one claim wins.
 */
export async function sweepCampaigns(deps: SweeperDependencies): Promise<SweepOutcome> {
  const settings = await deps.settings();
  const ids = await deps.campaigns.campaignsWithStatus(['sending'], SWEEP_LIMIT);
  const now = deps.now().getTime();
  let stalled = 0;
  let repaired = 0;
  let recounted = 0;
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
    } else if (isQuietAndShort(campaign, now)) {
      await recountQuiet(deps, campaign);
      recounted += 1;
    }
  }
  // Published every sweep, zero included, so the alarm sees a value and not missing data.
  deps.metrics.count('StalledCampaigns', stalled);
  await reportOverdueSchedules(deps, settings);
  const resumed = await resumeAfterQuota(deps, now);
  return { sending: ids.length, stalled, repaired, recounted, resumed };
}

/**
 * Whether a run looks done but is not counted so: every page planned, counts short of the
 * total, nothing settled for RECOUNT_AFTER_MS, and not recounted since its last progress.
 */
function isQuietAndShort(campaign: CampaignRecord, now: number): boolean {
  if (!campaign.plan_done || isRunComplete(campaign)) return false;
  const progress = Date.parse(campaign.progress_at ?? campaign.started_at ?? '') || 0;
  if (now - progress < RECOUNT_AFTER_MS) return false;
  return campaign.recounted_at === undefined || Date.parse(campaign.recounted_at) < progress;
}

/**
 * Recounts a quiet run from its records ([campaign.complete]): when every record is settled,
 * the counts and the end of the run are one write, which no late worker's count can follow
 * (a worker adds only to a run still sending). Otherwise only the time of the recount is kept:
 * a worker may still be counting, and the repair after REPAIR_AFTER_MS takes it from there.
 */
async function recountQuiet(deps: CampaignDependencies, campaign: CampaignRecord): Promise<void> {
  const counts = await deps.campaigns.countSettled(recordSpaceOf(campaign), campaign.run);
  const at = deps.now().toISOString();
  if (counts.sent + counts.skipped + counts.failed < campaign.total) {
    await deps.campaigns.updateCampaign(campaign.id, {
      expect: { statuses: ['sending'], run: campaign.run },
      set: { recounted_at: at },
    });
    return;
  }
  const done = await completeRun(deps, campaign, {
    sent: counts.sent,
    skipped: counts.skipped,
    failed: counts.failed,
    recounted_at: at,
  });
  if (done)
    deps.log.warn('campaign_recounted', {
      newsletter_id: campaign.id,
      run: campaign.run,
      counted_before: settled(campaign),
      counted_now: settled(done),
    });
}

/**
 * Campaigns paused for the daily quota go on by themselves once SES has room again
 * ([campaign.quota]): asked at most every QUOTA_CHECK_MS per campaign, never per mail. Room
 * means at least a chunk's worth (or what is left to send, or the whole quota of a small
 * account), so that a resume does not stop again at once.
 */
async function resumeAfterQuota(deps: SweeperDependencies, now: number): Promise<number> {
  const ids = await deps.campaigns.campaignsWithStatus(['paused'], SWEEP_LIMIT);
  let resumed = 0;
  let quota: Awaited<ReturnType<SweeperDependencies['quota']['sendQuota']>> | undefined;
  for (const id of ids) {
    const campaign = await deps.campaigns.getCampaign(id);
    if (campaign?.status !== 'paused' || campaign.pause_reason !== 'quota') continue;
    const checked = Date.parse(campaign.quota_checked_at ?? '') || 0;
    if (now - checked < QUOTA_CHECK_MS) continue;
    quota ??= await deps.quota.sendQuota();
    const room = quota.max24HourSend - quota.sentLast24Hours;
    const left = Math.max(1, campaign.total - settled(campaign));
    if (room < Math.min(left, CHUNK_SIZE, quota.max24HourSend)) {
      await deps.campaigns.updateCampaign(id, {
        expect: { statuses: ['paused'], pauseReason: 'quota' },
        set: { quota_checked_at: deps.now().toISOString() },
      });
      continue;
    }
    const restarted = await restartWork(deps, id, ['paused'], 'quota');
    if (restarted) {
      resumed += 1;
      deps.log.info('campaign_resumed', {
        newsletter_id: id,
        run: restarted.run,
        walk: restarted.walk,
        after: 'quota',
        room,
      });
    }
  }
  return resumed;
}

async function repair(deps: CampaignDependencies, campaign: CampaignRecord): Promise<void> {
  // The total is the planner's, added with each page it committed; the outcomes are counted
  // again from the records, since a worker that died took its uncounted ones with it.
  const counts = await deps.campaigns.countSettled(recordSpaceOf(campaign), campaign.run);
  const recounted = await deps.campaigns.updateCampaign(campaign.id, {
    expect: { statuses: ['sending'], run: campaign.run },
    set: {
      sent: counts.sent,
      skipped: counts.skipped,
      failed: counts.failed,
      active_at: deps.now().toISOString(),
    },
  });
  if (!recounted) return;
  deps.log.warn('campaign_repaired', {
    newsletter_id: campaign.id,
    run: campaign.run,
    unsent: campaign.total - (counts.sent + counts.skipped + counts.failed),
    counted_before: campaign.sent + campaign.skipped + campaign.failed,
    counted_now: counts.sent + counts.skipped + counts.failed,
  });
  if (isRunComplete(recounted)) await completeRun(deps, recounted);
  else await restartWork(deps, recounted.id, ['sending']);
}
