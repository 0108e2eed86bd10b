/**
 * The function SES's feedback drives, as functions/routes.ts is for the API and
 * functions/streams/consumers.ts for the table's stream: the CDK stack builds its function and
 * permissions from this entry, and the local cloud runs it from what the stack synthesizes.
 */
import type { RouteAccess } from '../routes.ts';

/** The feedback function: SES events, through the feedback topic, into subscriber statuses. */
export const sesFeedback = {
  /** Handler file `functions/feedback/<name>.ts`; Lambda id. */
  name: 'ses-feedback',
  summary: 'Applies SES bounces, complaints and deliveries to the subscribers',
  access: {
    // Read the subscriber, then a whole-item put conditional on the version read
    // (shared/operations/record-feedback.ts), with the list index entries a bounce or a
    // complaint removes (DeleteItem, same transaction); the settings for the soft-bounce
    // limit; a campaign mail's bounce or complaint noted on its recipient record (UpdateItem).
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    queries: [],
    sendsMail: false,
    settings: true,
  },
} as const satisfies {
  readonly name: string;
  readonly summary: string;
  readonly access: RouteAccess;
};
