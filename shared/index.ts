/**
 * The entry point for other code: `import { Newsletter, isNewsletterError } from
 * 'serverless-newsletter'`. Importing it wires mail through SES, so every operation works with
 * nothing but the environment variables of shared/runtime/environment.ts.
 */

import { SesMailer } from './adapters/mail/ses-mailer.ts';
import { Newsletter } from './newsletter.ts';
import { sesClient } from './runtime/ses-client.ts';

Newsletter.configure({ mailer: new SesMailer(sesClient()) });

export { type ErrorCode, isNewsletterError, type NewsletterError } from './domain/errors.ts';
export type { NewsletterIssue } from './domain/newsletter-issue.ts';
export type { Settings, SettingsInput } from './domain/settings-schema.ts';
export type { Subscriber, SubscriberStatus } from './domain/subscriber.ts';
export type { DeleteResult } from './operations/delete-subscriber.ts';
export type { CallContext } from './operations/dependencies.ts';
export type { PublicSubscribeResult } from './operations/subscribe.ts';
export type { LinkOutcome } from './operations/token-links.ts';
export { ENV } from './runtime/environment.ts';
export { Newsletter };
