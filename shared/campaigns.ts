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
import { testNewsletter } from './operations/campaign/test-send.ts';
import { NO_METRICS } from './operations/dependencies.ts';
import { runOperation } from './operations/run-operation.ts';
import { campaignQueue, campaignStore } from './runtime/campaign-clients.ts';
import { readCampaignEnvironment, readEnvironment } from './runtime/environment.ts';
import { createLogger } from './runtime/logger.ts';
import { serviceParameters } from './runtime/parameters.ts';

/** Sending an issue in-process: trusted (no key), over explicit dependencies. */
export interface CampaignOperations {
  /** Starts sending an issue to its lists; `new_only`: to the subscribers it has not reached yet. */
  send_newsletter(params: {
    id?: unknown;
    new_only?: unknown;
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
export function createCampaigns(deps: CampaignDependencies): CampaignOperations {
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
        return sendNewsletter(deps, { id, newOnly: params.new_only === true });
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
        return typeof id === 'number' ? campaignReport(deps, id) : id;
      }),
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
    });
  }
  return defaults;
}

/** Starts sending an issue to the `C` subscribers of its lists ([campaign.plan]). */
export function send_newsletter(params: {
  id?: unknown;
  new_only?: unknown;
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
