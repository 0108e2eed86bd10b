/**
 * The entry point for other code: `import { Newsletter, isNewsletterError } from
 * 'serverless-newsletter'`. Importing it wires mail through SES, so every operation works with
 * nothing but the environment variables of shared/config/environment.ts.
 */
import { sesClient } from './aws/ses-client.ts';
import { SesMailer } from './mail/ses-mailer.ts';
import { Newsletter } from './newsletter.ts';

Newsletter.configure({ mailer: new SesMailer(sesClient()) });

export { ENV } from './config/environment.ts';
export { type ErrorCode, isNewsletterError, type NewsletterError } from './errors.ts';
export type { NewsletterIssue } from './newsletters/newsletter-issue.ts';
export type { DeleteResult } from './operations/delete-subscriber.ts';
export type { PublicSubscribeResult } from './operations/subscribe.ts';
export type { LinkOutcome } from './operations/token-links.ts';
export type { CallContext } from './process/dependencies.ts';
export type { Settings, SettingsInput } from './settings/settings-schema.ts';
export type { Subscriber, SubscriberStatus } from './subscribers/subscriber.ts';
export { Newsletter };
