import {
  DEFAULT_SCHEDULE_LATENESS_MINUTES,
  isScheduleOverdue,
} from '../../domain/campaign/campaign-schedule.ts';
import type { Settings } from '../../domain/settings-schema.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';

/** Scheduled issues looked at per sweep: the newest. */
const OVERDUE_LIMIT = 100;

/**
 * The sweeper's look at scheduled issues ([campaign.schedule-overdue]): every issue still
 * `scheduled` more than `campaign.schedule_lateness_minutes` after its time is logged
 * (`schedule_overdue`) and counted in OverdueSchedules, published every sweep, zero included,
 * so its alarm stays on while any issue is overdue and clears once none is. Nothing is written:
 * the listing shows such an issue MISSED from the same rule, and the operator decides (send it
 * now, or unschedule it). Reads only what the sweeper reads already (the `recent` index, the
 * issue), so its permissions do not grow.
 */
export async function reportOverdueSchedules(
  deps: Pick<CampaignDependencies, 'campaigns' | 'now' | 'log' | 'metrics'>,
  settings: Pick<Settings, 'campaign'>,
): Promise<number> {
  const lateness =
    settings.campaign?.schedule_lateness_minutes ?? DEFAULT_SCHEDULE_LATENESS_MINUTES;
  const ids = await deps.campaigns.campaignsWithStatus(['scheduled'], OVERDUE_LIMIT);
  const now = deps.now();
  let overdue = 0;
  for (const id of ids) {
    const issue = await deps.campaigns.getCampaign(id);
    if (!issue || !isScheduleOverdue(issue, now, lateness)) continue;
    overdue += 1;
    deps.log.warn('schedule_overdue', {
      newsletter_id: id,
      at: issue.scheduled_at ?? null,
      missed_at: issue.schedule_missed_at ?? null,
      lateness_minutes: lateness,
    });
  }
  deps.metrics.count('OverdueSchedules', overdue);
  return overdue;
}
