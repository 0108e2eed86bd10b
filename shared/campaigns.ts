import type { CampaignMailer } from './adapters/mail/campaign-mailer-port.ts';
import { SesSendQuota } from './adapters/mail/ses-send-quota.ts';
import type { CampaignScheduler } from './adapters/scheduler/campaign-scheduler-port.ts';
import type { EngagementStore } from './adapters/store/engagement-store-port.ts';
import type { CampaignRecord } from './domain/campaign/campaign.ts';
import { type NewsletterError, newsletterError } from './domain/errors.ts';
import type { CampaignDependencies } from './operations/campaign/campaign-dependencies.ts';
import { type CampaignReport, campaignReport } from './operations/campaign/campaign-report.ts';
import {
  cancelNewsletter,
  pauseNewsletter,
  resumeNewsletter,
  sendNewsletter,
} from './operations/campaign/control-campaign.ts';
import {
  scheduleNewsletter,
  unscheduleNewsletter,
} from './operations/campaign/schedule-campaign.ts';
import { testNewsletter } from './operations/campaign/test-send.ts';
import { MissingDependency, NO_METRICS } from './operations/dependencies.ts';
import { runOperation } from './operations/run-operation.ts';
import { campaignQueue, campaignScheduler, campaignStore } from './runtime/campaign-clients.ts';
import {
  readCampaignEnvironment,
  readEnvironment,
  readSchedulerEnvironment,
} from './runtime/environment.ts';
import { createLogger } from './runtime/logger.ts';
import { serviceParameters } from './runtime/parameters.ts';
import { sesClient } from './runtime/ses-client.ts';
import { engagementStore } from './runtime/store.ts';

/** Sending an issue in-process: trusted (no key), over explicit dependencies. */
export interface CampaignOperations {
  /** Starts sending an issue to its lists; `new_only`: to the subscribers it has not reached yet. */
  send_newsletter(params: {
    id?: unknown;
    new_only?: unknown;
    /** Goes on although the issue does not fit in the account's daily quota ([campaign.quota]). */
    accept_quota?: unknown;
  }): Promise<CampaignRecord | NewsletterError>;
  /** Pauses a sending issue. */
  pause_newsletter(params: { id?: unknown }): Promise<CampaignRecord | NewsletterError>;
  /** Resumes a paused issue. */
  resume_newsletter(params: { id?: unknown }): Promise<CampaignRecord | NewsletterError>;
  /** Cancels a scheduled, sending or paused issue. */
  cancel_newsletter(params: { id?: unknown }): Promise<CampaignRecord | NewsletterError>;
  /** Sends an issue as a test to at most 5 addresses; nothing is recorded. */
  test_newsletter(params: {
    id?: unknown;
    to?: unknown;
  }): Promise<{ newsletter_id: number; to: string[] } | NewsletterError>;
  /** An issue's outcome, counted from its recipient records. */
  report_newsletter(params: { id?: unknown }): Promise<CampaignReport | NewsletterError>;
  /** Schedules a draft to start sending at `at` (ISO 8601 with a zone). */
  schedule_newsletter(params: {
    id?: unknown;
    at?: unknown;
  }): Promise<CampaignRecord | NewsletterError>;
  /** Takes a scheduled issue back to draft and deletes its schedule. */
  unschedule_newsletter(params: { id?: unknown }): Promise<CampaignRecord | NewsletterError>;
}

/** What the campaign operations run on; scheduling needs a scheduler besides. */
export interface CampaignOperationsDependencies extends CampaignDependencies {
  readonly scheduler?: CampaignScheduler;
  /** SES's quota: with it, a send that does not fit in the daily quota says so first. */
  readonly quota?: Pick<CampaignMailer, 'sendQuota'>;
  /** Opens and clicks for the report ([engagement.report]); without it the report has none. */
  readonly engagement?: Pick<EngagementStore, 'figures'>;
}

/** The scheduler of `deps`, or the 500 naming it when the composition root gave none. */
function schedulerOf(deps: CampaignOperationsDependencies): CampaignScheduler {
  if (!deps.scheduler) throw new MissingDependency('the campaign scheduler');
  return deps.scheduler;
}

/** A newsletter id from a caller's parameters, or the error naming what is wrong. */
function idOf(params: { id?: unknown }): number | NewsletterError {
  const id =
    typeof params.id === 'string' && /^\d+$/.test(params.id) ? Number(params.id) : params.id;
  if (id === undefined || id === null || id === '')
    return newsletterError('missing_parameter', 'id is required');
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1)
    return newsletterError(
      'invalid_parameter',
      'id must be a newsletter id (a whole number of at least 1)',
    );
  return id;
}

/** The campaign operations over explicit dependencies (tests, another Lambda's own wiring). */
export function createCampaigns(deps: CampaignOperationsDependencies): CampaignOperations {
  const withId =
    (
      name: string,
      operation: (
        deps: CampaignDependencies,
        id: number,
      ) => Promise<CampaignRecord | NewsletterError>,
    ) =>
    (params: { id?: unknown }) =>
      runOperation(deps, name, async () => {
        const id = idOf(params);
        return typeof id === 'number' ? operation(deps, id) : id;
      });
  return {
    send_newsletter: (params) =>
      runOperation(deps, 'send_newsletter', async () => {
        const id = idOf(params);
        if (typeof id !== 'number') return id;
        if (params.new_only !== undefined && typeof params.new_only !== 'boolean')
          return newsletterError('invalid_parameter', 'new_only must be true or false');
        if (params.accept_quota !== undefined && typeof params.accept_quota !== 'boolean')
          return newsletterError('invalid_parameter', 'accept_quota must be true or false');
        return sendNewsletter(deps, {
          id,
          newOnly: params.new_only === true,
          ...(deps.quota ? { quota: deps.quota } : {}),
          acceptQuota: params.accept_quota === true,
        });
      }),
    test_newsletter: (params) =>
      runOperation(deps, 'test_newsletter', async () => {
        const id = idOf(params);
        if (typeof id !== 'number') return id;
        return testNewsletter(deps, id, Array.isArray(params.to) ? params.to : [params.to]);
      }),
    report_newsletter: (params) =>
      runOperation(deps, 'report_newsletter', async () => {
        const id = idOf(params);
        if (typeof id !== 'number') return id;
        const engagement = deps.engagement
          ? { store: deps.engagement, tracking: (await deps.settings()).campaign.tracking }
          : undefined;
        return campaignReport(
          { campaigns: deps.campaigns, ...(engagement ? { engagement } : {}) },
          id,
        );
      }),
    schedule_newsletter: (params) =>
      runOperation(deps, 'schedule_newsletter', async () => {
        const id = idOf(params);
        if (typeof id !== 'number') return id;
        return scheduleNewsletter({ ...deps, scheduler: schedulerOf(deps) }, { id, at: params.at });
      }),
    unschedule_newsletter: withId('unschedule_newsletter', (deps, id) =>
      unscheduleNewsletter({ ...deps, scheduler: schedulerOf(deps) }, id),
    ),
    pause_newsletter: withId('pause_newsletter', pauseNewsletter),
    resume_newsletter: withId('resume_newsletter', resumeNewsletter),
    cancel_newsletter: withId('cancel_newsletter', cancelNewsletter),
  };
}

let defaults: CampaignOperations | undefined;
/**
 * The operations over the environment (shared/runtime/environment.ts): the table, the settings
 * and the campaign planner's queue (NEWSLETTER_CAMPAIGN_PLANS_QUEUE, the stack's CampaignQueue
 * output). Links in the mails come from the settings' public_base_url: an in-process caller
 * has no request to take them from.
 */
function campaigns(): CampaignOperations {
  if (!defaults) {
    const environment = readEnvironment();
    defaults = createCampaigns({
      campaigns: campaignStore(environment),
      queue: campaignQueue(readCampaignEnvironment()),
      settings: serviceParameters(environment).settings,
      now: () => new Date(),
      log: createLogger().log,
      metrics: NO_METRICS,
      scheduler: lazyScheduler(),
      // Only GetSendQuota (no MIME composer): the caller's role needs ses:GetSendQuota
      // (docs/package.md).
      quota: new SesSendQuota(sesClient()),
      engagement: engagementStore(environment),
    });
  }
  return defaults;
}

/**
 * The environment's scheduler, built when first used: a caller that never schedules needs none
 * of its variables, and one that schedules without them gets the 500 naming them.
 */
function lazyScheduler(): CampaignScheduler {
  let scheduler: CampaignScheduler | undefined;
  const built = (): CampaignScheduler => {
    if (!scheduler) {
      try {
        scheduler = campaignScheduler(readSchedulerEnvironment());
      } catch (error) {
        throw new MissingDependency(error instanceof Error ? error.message : 'the scheduler');
      }
    }
    return scheduler;
  };
  return {
    create: (name, at, input) => built().create(name, at, input),
    delete: (name) => built().delete(name),
  };
}

/** Starts sending an issue to the `C` subscribers of its lists ([campaign.plan]). */
export function send_newsletter(params: {
  id?: unknown;
  new_only?: unknown;
  accept_quota?: unknown;
}): Promise<CampaignRecord | NewsletterError> {
  return campaigns().send_newsletter(params);
}

/** Sends an issue as a test to at most 5 addresses ([campaign.test-send]). */
export function test_newsletter(params: {
  id?: unknown;
  to?: unknown;
}): Promise<{ newsletter_id: number; to: string[] } | NewsletterError> {
  return campaigns().test_newsletter(params);
}

/** An issue's outcome from its recipient records ([campaign.report]). */
export function report_newsletter(params: {
  id?: unknown;
}): Promise<CampaignReport | NewsletterError> {
  return campaigns().report_newsletter(params);
}

/** Pauses a sending issue ([campaign.pause]). */
export function pause_newsletter(params: {
  id?: unknown;
}): Promise<CampaignRecord | NewsletterError> {
  return campaigns().pause_newsletter(params);
}

/** Resumes a paused issue ([campaign.resume]). */
export function resume_newsletter(params: {
  id?: unknown;
}): Promise<CampaignRecord | NewsletterError> {
  return campaigns().resume_newsletter(params);
}

/** Cancels a scheduled, sending or paused issue ([campaign.cancel]). */
export function cancel_newsletter(params: {
  id?: unknown;
}): Promise<CampaignRecord | NewsletterError> {
  return campaigns().cancel_newsletter(params);
}

/**
 * Schedules a draft to start sending at `at` ([campaign.schedule]); links in its mails come
 * from the settings' public_base_url. Needs NEWSLETTER_SCHEDULE_GROUP, _TARGET and _ROLE (the
 * stack's CampaignSchedule* outputs) and the caller's own scheduler:CreateSchedule on the
 * group and iam:PassRole on the role.
 */
export function schedule_newsletter(params: {
  id?: unknown;
  at?: unknown;
}): Promise<CampaignRecord | NewsletterError> {
  return campaigns().schedule_newsletter(params);
}

/** Takes a scheduled issue back to draft and deletes its schedule ([campaign.schedule]). */
export function unschedule_newsletter(params: {
  id?: unknown;
}): Promise<CampaignRecord | NewsletterError> {
  return campaigns().unschedule_newsletter(params);
}

/**
 * Sending an issue, as a class of static methods beside `Newsletter`: apart from it, so that
 * a bundle of the interface's class carries no campaign operation and none of the SQS,
 * Scheduler and SES clients they call (docs/package.md). The same defaults as the functions
 * above: dependencies from the environment on first call, nothing on import.
 */
// biome-ignore lint/complexity/noStaticOnlyClass: the same shape as the interface's class
export class Campaigns {
  static readonly send_newsletter = send_newsletter;
  static readonly pause_newsletter = pause_newsletter;
  static readonly resume_newsletter = resume_newsletter;
  static readonly cancel_newsletter = cancel_newsletter;
  static readonly test_newsletter = test_newsletter;
  static readonly report_newsletter = report_newsletter;
  static readonly schedule_newsletter = schedule_newsletter;
  static readonly unschedule_newsletter = unschedule_newsletter;
}
