import type { CampaignScheduler } from '../../adapters/scheduler/campaign-scheduler-port.ts';
import type { CampaignRecord } from '../../domain/campaign/campaign.ts';
import {
  DEFAULT_SCHEDULE_LATENESS_MINUTES,
  decideFiring,
  parseScheduleTime,
  type ScheduledSend,
  scheduleName,
  scheduleTimeText,
} from '../../domain/campaign/campaign-schedule.ts';
import { invalidTransition, transitionOf } from '../../domain/campaign/campaign-status.ts';
import { isNewsletterError, type NewsletterError } from '../../domain/errors.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';
import {
  lostRace,
  notFound,
  readyToSend,
  type SendContext,
  sendNewsletter,
} from './control-campaign.ts';

/** What scheduling needs besides the campaign store: where schedules are made. */
export interface ScheduleDependencies extends CampaignDependencies {
  readonly scheduler: CampaignScheduler;
}

/**
 * Schedules a draft to start sending at `at` ([campaign.schedule]): checked as a send is
 * checked (content, lists, where links point), then the one-time schedule is created, then one
 * conditional write moves the issue draft → scheduled with its time. The schedule comes first:
 * if the write then loses (the issue moved on) the schedule is deleted again, and a schedule
 * left behind by a crash in between finds the issue not scheduled for its time and does
 * nothing, whereas the other order could leave an issue `scheduled` with nothing to fire it.
 */
export async function scheduleNewsletter(
  deps: ScheduleDependencies,
  options: { readonly id: number; readonly at: unknown },
  context: SendContext = {},
): Promise<CampaignRecord | NewsletterError> {
  const { id } = options;
  const current = await deps.campaigns.getCampaign(id);
  if (!current) return notFound(id);
  const transition = transitionOf('schedule');
  if (!transition.from.includes(current.status))
    return invalidTransition(id, current.status, 'schedule');
  const at = parseScheduleTime(options.at, deps.now());
  if (isNewsletterError(at)) return at;
  const ready = await readyToSend(deps, current, context);
  if (isNewsletterError(ready)) return ready;
  const name = scheduleName(id, at);
  const atText = scheduleTimeText(at);
  await deps.scheduler.create(name, at, {
    newsletter_id: id,
    at: atText,
    ...(context.apiRoot ? { api_root: context.apiRoot } : {}),
  });
  const scheduled = await deps.campaigns.updateCampaign(id, {
    expect: { statuses: transition.from },
    set: { status: transition.to, scheduled_at: atText },
    remove: ['schedule_missed_at'],
  });
  if (!scheduled) {
    await deps.scheduler.delete(name);
    return lostRace(deps, id, 'schedule');
  }
  deps.log.info('campaign_scheduled', { newsletter_id: id, at: atText, schedule: name });
  return scheduled;
}

/**
 * Takes a scheduled issue back to draft ([campaign.schedule]) with one conditional write, then
 * deletes its schedule. Should the delete fail, the schedule left behind finds a draft when it
 * fires and does nothing; the failure is logged, not returned, since the issue is a draft.
 */
export async function unscheduleNewsletter(
  deps: ScheduleDependencies,
  id: number,
): Promise<CampaignRecord | NewsletterError> {
  const current = await deps.campaigns.getCampaign(id);
  if (!current) return notFound(id);
  const transition = transitionOf('unschedule');
  if (!transition.from.includes(current.status))
    return invalidTransition(id, current.status, 'unschedule');
  const draft = await deps.campaigns.updateCampaign(id, {
    expect: { statuses: transition.from },
    set: { status: transition.to },
    remove: ['scheduled_at', 'schedule_missed_at'],
  });
  if (!draft) return lostRace(deps, id, 'unschedule');
  if (current.scheduled_at) {
    const name = scheduleName(id, new Date(current.scheduled_at));
    try {
      await deps.scheduler.delete(name);
    } catch (error) {
      deps.log.warn('schedule_not_deleted', {
        newsletter_id: id,
        schedule: name,
        error: error instanceof Error ? error.name : 'unknown',
      });
    }
  }
  deps.log.info('campaign_unscheduled', { newsletter_id: id });
  return draft;
}

/** What a firing schedule did. */
export type FiringOutcome =
  | { readonly kind: 'sent'; readonly newsletter_id: number; readonly run: number }
  | { readonly kind: 'late'; readonly newsletter_id: number; readonly late_by_seconds: number }
  | { readonly kind: 'stale'; readonly newsletter_id: number }
  | { readonly kind: 'failed'; readonly newsletter_id: number; readonly error: string }
  | { readonly kind: 'invalid' };

/** A schedule's input, as EventBridge passes it; undefined when it is not one of ours. */
export function readScheduledSend(input: unknown): ScheduledSend | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { newsletter_id: id, at, api_root: apiRoot } = input as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1) return undefined;
  if (typeof at !== 'string' || Number.isNaN(Date.parse(at))) return undefined;
  return {
    newsletter_id: id,
    at,
    ...(typeof apiRoot === 'string' && apiRoot ? { api_root: apiRoot } : {}),
  };
}

/**
 * What runs when a schedule fires ([campaign.schedule], [campaign.schedule-late]): the send
 * starts through the same operation as `newsletters send`, if the issue is still scheduled for
 * this time and the schedule fires no later than the settings' `campaign.schedule_lateness_minutes`
 * after it. Later, nothing is sent: the issue stays `scheduled`, marked with when its schedule
 * fired (`schedule_missed_at`, shown by the listing and the CLI), and `SchedulesMissed` is
 * counted, which has an alarm. A send that cannot start (its content was emptied) is marked and
 * counted the same way. A schedule for a time the issue no longer has does nothing.
 */
export async function startScheduledSend(
  deps: CampaignDependencies,
  input: unknown,
): Promise<FiringOutcome> {
  const scheduled = readScheduledSend(input);
  if (!scheduled) {
    deps.log.error('schedule_input_invalid', {});
    return { kind: 'invalid' };
  }
  const id = scheduled.newsletter_id;
  const current = await deps.campaigns.getCampaign(id);
  const settings = await deps.settings();
  const lateness =
    settings.campaign?.schedule_lateness_minutes ?? DEFAULT_SCHEDULE_LATENESS_MINUTES;
  const firedAt = deps.now();
  const decision = current
    ? decideFiring(current, scheduled.at, firedAt, lateness)
    : ({ kind: 'stale' } as const);
  if (decision.kind === 'stale') return stale(deps, scheduled, current?.status ?? 'none');
  if (decision.kind === 'send') {
    const started = await sendNewsletter(
      deps,
      { id, scheduledAt: scheduled.at },
      scheduled.api_root ? { apiRoot: scheduled.api_root } : {},
    );
    if (!isNewsletterError(started)) return { kind: 'sent', newsletter_id: id, run: started.run };
    if (!(await markMissed(deps, scheduled, firedAt))) return stale(deps, scheduled, 'changed');
    deps.log.error('scheduled_send_failed', { newsletter_id: id, error: started.code });
    return { kind: 'failed', newsletter_id: id, error: started.message };
  }
  if (!(await markMissed(deps, scheduled, firedAt))) return stale(deps, scheduled, 'changed');
  const lateBySeconds = Math.round(decision.lateByMs / 1000);
  deps.log.warn('schedule_missed', {
    newsletter_id: id,
    at: scheduled.at,
    late_by_seconds: lateBySeconds,
    lateness_minutes: lateness,
  });
  return { kind: 'late', newsletter_id: id, late_by_seconds: lateBySeconds };
}

/**
 * Marks a scheduled issue as missed and counts it (the alarm); it stays `scheduled`. Only while
 * it is still scheduled for this schedule's time: false when it moved on since it was read (the
 * operator unscheduled, rescheduled or sent it), and then nothing is marked or counted.
 */
async function markMissed(
  deps: CampaignDependencies,
  scheduled: ScheduledSend,
  firedAt: Date,
): Promise<boolean> {
  const id = scheduled.newsletter_id;
  const marked = await deps.campaigns.updateCampaign(id, {
    expect: { statuses: ['scheduled'], scheduledAt: scheduled.at },
    set: { schedule_missed_at: firedAt.toISOString() },
  });
  if (!marked) return false;
  deps.metrics.count('SchedulesMissed', 1, { newsletter: String(id) });
  return true;
}

/** A schedule for a time its issue no longer has: it does nothing. */
function stale(
  deps: CampaignDependencies,
  scheduled: ScheduledSend,
  status: string,
): FiringOutcome {
  deps.log.info('schedule_stale', {
    newsletter_id: scheduled.newsletter_id,
    at: scheduled.at,
    status,
  });
  return { kind: 'stale', newsletter_id: scheduled.newsletter_id };
}
