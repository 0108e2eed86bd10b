import { isNewsletterError } from '../shared/domain/errors.ts';
import {
  type ScheduleDependencies,
  scheduleNewsletter,
  unscheduleNewsletter,
} from '../shared/operations/campaign/schedule-campaign.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf, toV2Issue } from '../shared/operations/v2/v2-issues.ts';
import { campaignScheduler } from '../shared/runtime/campaign-clients.ts';
import { readSchedulerEnvironment } from '../shared/runtime/environment.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issue-schedule.ts';

const { runtime, keyCheck, campaignDeps } = v2CampaignFunction();
// This function alone creates schedules (the stack's CampaignSchedule* values, its grants on
// the schedule group and the role it passes: functions/routes.ts, `schedules`).
const deps: ScheduleDependencies = {
  ...campaignDeps,
  scheduler: campaignScheduler(readSchedulerEnvironment()),
};

/**
 * v2 `POST /issues/{id}/schedule` (ours): schedules a draft to start sending at `at`, as
 * `newsletters schedule` does; `DELETE` takes a scheduled issue back to draft, as
 * `newsletters unschedule` ([v2.issues], [campaign.schedule]). Both answer the issue.
 */
export const handler = v2Handler(route, runtime, keyCheck, {
  POST: async (params, caller) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    const scheduled = await runOperation(deps, 'schedule_newsletter', () =>
      scheduleNewsletter(
        deps,
        { id, at: params.at },
        caller.apiRoot ? { apiRoot: caller.apiRoot } : {},
      ),
    );
    return isNewsletterError(scheduled) ? scheduled : { body: toV2Issue(scheduled) };
  },
  DELETE: async (params) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    const draft = await runOperation(deps, 'unschedule_newsletter', () =>
      unscheduleNewsletter(deps, id),
    );
    return isNewsletterError(draft) ? draft : { body: toV2Issue(draft) };
  },
});
