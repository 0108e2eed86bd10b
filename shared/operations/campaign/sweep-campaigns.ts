import type { CampaignMailer } from '../../adapters/mail/campaign-mailer-port.ts';
import { recordSpaceOf } from '../../adapters/store/campaign-store-port.ts';
import type { CampaignRecord, RecountProgress } from '../../domain/campaign/campaign.ts';
import { isRunComplete, settled } from '../../domain/campaign/campaign.ts';
import { wantsFeed } from '../../domain/campaign/feed.ts';
import {
  RATE_KEPT_ALARM_PERCENT,
  rateKeptPercent,
  rateShare,
  type SendSample,
  sendSampleOf,
} from '../../domain/campaign/rate-kept.ts';
import { CHUNK_SIZE } from '../../domain/campaign/work-messages.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';
import { startNextTurns, turnOf } from './campaign-turns.ts';
import { completeRun } from './finish-run.ts';
import { reportOverdueSchedules } from './overdue-schedules.ts';
import { restartWork } from './restart-work.ts';
import { LONGEST_BACKOFF_MS } from './send-recipients.ts';

/**
 * A minute for work that comes back (after a backoff, or from the queue) to be taken up by a
 * worker and noted on the campaign (`active_at`, written about every second it works).
 */
const TAKE_UP_MS = 60_000;
/**
 * A campaign with no worker activity for this long is repaired. Healthy work can leave a
 * campaign untouched for as long as the longest backoff of work put back after a throttle
 * (LONGEST_BACKOFF_MS, 375 s) or a dead invocation's message stays hidden (twice the workers'
 * timeout: 120 s by default), and a worker then takes a moment to note it: a repair only after
 * both, so a long throttle never triggers one (435 s).
 */
export const REPAIR_AFTER_MS = LONGEST_BACKOFF_MS + TAKE_UP_MS;
/** Sending campaigns looked at per sweep: the newest issues. */
const SWEEP_LIMIT = 100;
/**
 * A run whose every page is planned, with no mail settled for this long while its counts fall
 * short, is recounted from its records ([campaign.complete]): a worker that died took its
 * uncounted outcomes with it. Longer than any live worker goes without recording its outcomes
 * (about a second, or a send's 3 s timeout and the retries of its record).
 */
export const RECOUNT_AFTER_MS = 20_000;
/**
 * Records a sweep reads for recounts at most, all campaigns together: about 6,000 RRU and a
 * few seconds of the sweeper's minute on AWS, whatever the size of the issues. A larger
 * recount goes on where it stopped at the next sweeps (250,000 records a minute).
 */
export const RECOUNT_RECORDS_PER_SWEEP = 250_000;
/** How often a campaign paused for the daily quota asks SES whether it has room again. */
export const QUOTA_CHECK_MS = 5 * 60_000;

/**
 * What the sweeper needs besides: SES's quota, for campaigns paused on it, and the last send
 * sample of each sending campaign this container swept ([campaign.rate-kept]), at most
 * SWEEP_LIMIT of them, the least recently swept dropped first.
 */
export interface SweeperDependencies extends CampaignDependencies {
  readonly quota: Pick<CampaignMailer, 'sendQuota'>;
  readonly sendSamples: Map<number, SendSample>;
  /** Records a sweep recounts at most (RECOUNT_RECORDS_PER_SWEEP unless a test wants fewer). */
  readonly recountRecords?: number;
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
 * The sweeper, every minute ([campaign.sweep]). First the campaigns paused for the daily
 * quota go on if SES has room, so that nothing below can keep them waiting. Then, for each
 * sending campaign: counts it stalled when it made no progress for `campaign.stall_minutes`
 * (the StalledCampaigns metric has an alarm); repairs one that saw no worker at all for
 * REPAIR_AFTER_MS (its planning goes on from the campaign's cursor and its unsent recipients are
 * queued again; queueing a recipient twice is harmless: only one claim wins); and recounts a
 * quiet run whose counts fall short, a bounded part of its records each sweep
 * ([campaign.complete]). Every step is bounded, whatever the size of the issues.
 */
export async function sweepCampaigns(deps: SweeperDependencies): Promise<SweepOutcome> {
  const settings = await deps.settings();
  const now = deps.now().getTime();
  const resumed = await resumeAfterQuota(deps, now);
  const ids = await deps.campaigns.campaignsWithStatus(['sending'], SWEEP_LIMIT);
  let stalled = 0;
  let repaired = 0;
  let recounted = 0;
  let records = deps.recountRecords ?? RECOUNT_RECORDS_PER_SWEEP;
  // One waiting for its turn has nothing under way to watch ([campaign.overlap]).
  const atWork = (await Promise.all(ids.map((id) => deps.campaigns.getCampaign(id)))).filter(
    (campaign): campaign is CampaignRecord =>
      campaign?.status === 'sending' && campaign.waiting_since === undefined,
  );
  for (const campaign of atWork) {
    const id = campaign.id;
    reportRateKept(deps, campaign, now, atWork.length);
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
      if (await repair(deps, campaign)) repaired += 1;
      continue;
    }
    if (records > 0 && isQuietAndShort(campaign, now)) {
      records -= await recountQuiet(deps, campaign, records);
      recounted += 1;
    }
    // A feed its workers asked for and lost (or none left to ask): asked again here.
    if (wantsFeed(campaign))
      await deps.queue.plan({
        kind: 'walk',
        newsletter_id: id,
        run: campaign.run,
        walk: campaign.walk,
        after: campaign.fed_after,
      });
  }
  // A turn lost with the write that should have started it (its caller died) comes here.
  await startNextTurns(deps);
  // Published every sweep, zero included, so the alarm sees a value and not missing data.
  deps.metrics.count('StalledCampaigns', stalled);
  await reportOverdueSchedules(deps, settings);
  return { sending: ids.length, stalled, repaired, recounted, resumed };
}

/**
 * [campaign.rate-kept] The share of its rate (divided among the `sharers` campaigns at work,
 * [campaign.budget]) a sending campaign sent since this container's last sweep of it, published as `CampaignRateKept` (also under its `newsletter` dimension; the
 * CampaignBehindRate alarm watches it), with a `campaign_behind_rate` line when it is short.
 */
function reportRateKept(
  deps: SweeperDependencies,
  campaign: CampaignRecord,
  now: number,
  sharers: number,
): void {
  const percent = rateKeptPercent(deps.sendSamples.get(campaign.id), campaign, now, sharers);
  deps.sendSamples.delete(campaign.id);
  deps.sendSamples.set(campaign.id, sendSampleOf(campaign, now));
  const oldest = deps.sendSamples.keys().next().value;
  if (deps.sendSamples.size > SWEEP_LIMIT && oldest !== undefined) deps.sendSamples.delete(oldest);
  if (percent === undefined) return;
  deps.metrics.percent('CampaignRateKept', percent, { newsletter: String(campaign.id) });
  if (percent < RATE_KEPT_ALARM_PERCENT)
    deps.log.warn('campaign_behind_rate', {
      newsletter_id: campaign.id,
      run: campaign.run,
      percent,
      rate: campaign.rate,
      ...(sharers > 1 ? { share: rateShare(campaign.rate ?? 0, sharers) } : {}),
    });
}

/**
 * Whether a run looks done but is not counted so: every page planned, counts short of the
 * total, nothing settled for RECOUNT_AFTER_MS, and not recounted since its last progress (or
 * a recount under way).
 */
function isQuietAndShort(campaign: CampaignRecord, now: number): boolean {
  if (!campaign.plan_done || isRunComplete(campaign)) return false;
  const progress = Date.parse(campaign.progress_at ?? campaign.started_at ?? '') || 0;
  if (now - progress < RECOUNT_AFTER_MS) return false;
  return campaign.recounted_at === undefined || Date.parse(campaign.recounted_at) < progress;
}

/**
 * Recounts a quiet run from its records ([campaign.complete]), at most `budget` of them in this
 * sweep: a recount under way goes on from where it stopped, unless the run settled something
 * since it started (its counts would be stale: it starts again). When every record is read and
 * every recipient settled, the counts and the end of the run are one write, which no late
 * worker's count can follow (a worker adds only to a run still sending). Otherwise only the
 * time of the recount is kept: a worker may still be counting, and the repair takes it from
 * there. Returns the records read.
 */
async function recountQuiet(
  deps: CampaignDependencies,
  campaign: CampaignRecord,
  budget: number,
): Promise<number> {
  const progress = Date.parse(campaign.progress_at ?? campaign.started_at ?? '') || 0;
  const under = campaign.recount;
  const goesOn =
    under !== undefined && under.run === campaign.run && Date.parse(under.started_at) >= progress;
  const at = deps.now().toISOString();
  const before: RecountProgress = goesOn
    ? under
    : { run: campaign.run, started_at: at, partition: 0, sent: 0, skipped: 0, failed: 0 };
  const step = await deps.campaigns.countSettledFrom(
    recordSpaceOf(campaign),
    campaign.run,
    { partition: before.partition, ...(before.after ? { after: before.after } : {}) },
    budget,
  );
  const counts = {
    sent: before.sent + step.counts.sent,
    skipped: before.skipped + step.counts.skipped,
    failed: before.failed + step.counts.failed,
  };
  if (step.next) {
    await deps.campaigns.updateCampaign(campaign.id, {
      expect: { statuses: ['sending'], run: campaign.run },
      set: {
        recount: {
          ...before,
          ...counts,
          partition: step.next.partition,
          ...(step.next.after ? { after: step.next.after } : {}),
        },
      },
    });
    return step.read;
  }
  if (counts.sent + counts.skipped + counts.failed < campaign.total) {
    await deps.campaigns.updateCampaign(campaign.id, {
      expect: { statuses: ['sending'], run: campaign.run },
      set: { recounted_at: before.started_at },
      remove: ['recount'],
    });
    return step.read;
  }
  const done = await completeRun(deps, campaign, { ...counts, recounted_at: before.started_at });
  if (done)
    deps.log.warn('campaign_recounted', {
      newsletter_id: campaign.id,
      run: campaign.run,
      counted_before: settled(campaign),
      counted_now: settled(done),
    });
  return step.read;
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
    const restarted = await restartWork(deps, id, ['paused'], {
      pauseReason: 'quota',
      wait: (await turnOf(deps, id)).wait,
    });
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

/**
 * Repairs a campaign no worker touched for REPAIR_AFTER_MS: its work is queued again as a
 * resume does (planning from its cursor, a walk of its chunks not done). Its counts are not
 * read here, which would take time growing with the issue: what a dead worker took with it is
 * recounted once the run is quiet ([campaign.complete]), and the repair clears the last
 * recount's time so that one follows. Whether it was repaired (a campaign paused or moved on
 * meanwhile is not).
 */
async function repair(deps: CampaignDependencies, campaign: CampaignRecord): Promise<boolean> {
  const restarted = await restartWork(deps, campaign.id, ['sending'], { run: campaign.run });
  if (!restarted) return false;
  deps.log.warn('campaign_repaired', {
    newsletter_id: campaign.id,
    run: campaign.run,
    walk: restarted.walk,
    counted: settled(campaign),
    total: campaign.total,
  });
  return true;
}
