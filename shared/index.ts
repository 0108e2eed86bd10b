/**
 * The entry point for other code: `import { Newsletter, isNewsletterError } from
 * 'serverless-newsletter'` (the six operations; `Campaigns` sends issues), or only the
 * operations a caller uses (`import { add_subscriber }`), which bundles less. Importing it has no side effect; the defaults build their dependencies
 * from the environment variables of shared/runtime/environment.ts on first use.
 * `createNewsletter` takes them explicitly instead.
 */
export {
  type CampaignOperations,
  Campaigns,
  cancel_newsletter,
  createCampaigns,
  pause_newsletter,
  report_newsletter,
  resume_newsletter,
  schedule_newsletter,
  send_newsletter,
  test_newsletter,
  unschedule_newsletter,
} from './campaigns.ts';
export type { CampaignRecord } from './domain/campaign/campaign.ts';
export { type ErrorCode, isNewsletterError, type NewsletterError } from './domain/errors.ts';
export type { NewsletterIssue } from './domain/newsletter-issue.ts';
export type { Settings, SettingsInput } from './domain/settings-schema.ts';
export type { Subscriber, SubscriberStatus } from './domain/subscriber.ts';
export {
  add_subscriber,
  createNewsletter,
  delete_subscriber,
  Newsletter,
  type NewsletterOperations,
  newsletters,
  subscribe,
  subscribers,
  unsubscribe,
} from './newsletter.ts';
export type { CampaignReport } from './operations/campaign/campaign-report.ts';
export type { DeleteResult } from './operations/delete-subscriber.ts';
export type {
  CallContext,
  Dependencies,
  Logger,
  Metrics,
} from './operations/dependencies.ts';
export type { PublicSubscribeResult } from './operations/subscribe.ts';
export type { LinkOutcome } from './operations/token-links.ts';
export { ENV } from './runtime/environment.ts';
