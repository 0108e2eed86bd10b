import { type NewsletterError, newsletterError } from '../errors.ts';
import type { NewsletterIssueStatus } from '../newsletter-issue.ts';

/**
 * The lifecycle of an issue ([campaign.lifecycle]): `draft` → (`scheduled`) → `sending` ⇄
 * `paused` → `sent`; `cancelled` from `scheduled`, `sending` or `paused`; and a sent issue
 * sends again to the subscribers it has not reached ("send to the new"). Each action is one
 * conditional write that applies only from the statuses listed here.
 */
export type CampaignAction =
  | 'send'
  | 'schedule'
  | 'unschedule'
  | 'pause'
  | 'resume'
  | 'cancel'
  | 'complete'
  | 'auto_pause'
  | 'resend_new'
  | 'edit';

/** A transition: the statuses it may start from and the status it leads to. */
export interface Transition {
  readonly from: readonly NewsletterIssueStatus[];
  readonly to: NewsletterIssueStatus;
}

/** Statuses in which an issue's content (subject, parts, lists) may still change. */
export const EDITABLE_STATUSES: readonly NewsletterIssueStatus[] = ['draft', 'scheduled'];

const TRANSITIONS: Readonly<Record<Exclude<CampaignAction, 'edit'>, Transition>> = {
  send: { from: ['draft', 'scheduled'], to: 'sending' },
  schedule: { from: ['draft'], to: 'scheduled' },
  unschedule: { from: ['scheduled'], to: 'draft' },
  pause: { from: ['sending'], to: 'paused' },
  resume: { from: ['paused'], to: 'sending' },
  cancel: { from: ['scheduled', 'sending', 'paused'], to: 'cancelled' },
  complete: { from: ['sending'], to: 'sent' },
  auto_pause: { from: ['sending'], to: 'paused' },
  resend_new: { from: ['sent'], to: 'sending' },
};

/** The transition of an action; `edit` keeps the status and is allowed in EDITABLE_STATUSES. */
export function transitionOf(action: Exclude<CampaignAction, 'edit'>): Transition {
  return TRANSITIONS[action];
}

/** The statuses an action may start from. */
function allowedFrom(action: CampaignAction): readonly NewsletterIssueStatus[] {
  return action === 'edit' ? EDITABLE_STATUSES : TRANSITIONS[action].from;
}

const VERBS: Readonly<Record<CampaignAction, string>> = {
  send: 'sent',
  schedule: 'scheduled',
  unschedule: 'unscheduled',
  pause: 'paused',
  resume: 'resumed',
  cancel: 'cancelled',
  complete: 'completed',
  auto_pause: 'paused',
  resend_new: 'sent to new subscribers',
  edit: 'edited',
};

/** "a draft or scheduled", "a sending", "a paused, scheduled or sending" newsletter. */
function describe(statuses: readonly NewsletterIssueStatus[]): string {
  const words = statuses.map((status) => status);
  const list =
    words.length <= 1
      ? (words[0] ?? '')
      : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
  return `${/^[aeiou]/.test(list) ? 'an' : 'a'} ${list}`;
}

/**
 * The error value of an action the issue's status does not allow: 409 `invalid_state`, saying
 * where the issue is and from where the action applies.
 */
export function invalidTransition(
  id: number,
  current: NewsletterIssueStatus,
  action: CampaignAction,
): NewsletterError {
  return newsletterError(
    'invalid_state',
    `Newsletter ${id} is ${current}; only ${describe(allowedFrom(action))} newsletter can be ${VERBS[action]}.`,
  );
}
