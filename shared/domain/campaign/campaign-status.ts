import { type NewsletterError, newsletterError } from '../errors.ts';
import type { NewsletterIssueStatus } from '../newsletter-issue.ts';

/**
 * The lifecycle of an issue ([campaign.lifecycle], decisions part 10): `draft` → (`scheduled`)
 * → `sending` ⇄ `paused` → `sent`, `cancelled` from `scheduled`, `sending` or `paused`, and a
 * sent issue sending again to the subscribers it has not reached ("send to the new"). Each
 * status change is one conditional write that applies only from the statuses listed here.
 */

/** Everything an operator or the engine may do to an issue. */
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

/** The actions that move an issue to another status; `edit` changes content, never the status. */
export type StatusChange = Exclude<CampaignAction, 'edit'>;

/** A status change: the statuses it may start from and the status it leads to. */
export interface Transition {
  readonly from: readonly NewsletterIssueStatus[];
  readonly to: NewsletterIssueStatus;
}

/**
 * Statuses in which an issue's content (subject, parts, lists) may change: once a send has
 * started, every recipient must get the same mail. An edit keeps the status as it is; whether
 * the issue is private, and its web URL, may change at any time.
 */
export const EDITABLE_STATUSES: readonly NewsletterIssueStatus[] = Object.freeze([
  'draft',
  'scheduled',
]);

const _TRANSITIONS: Readonly<Record<StatusChange, Transition>> = {
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

/** The transition of a status change: the condition and the new status of its write. */
export function transitionOf(action: StatusChange): Transition {
  return _TRANSITIONS[action];
}

/** The statuses an action may start from (for `edit`, EDITABLE_STATUSES). */
export function allowedFrom(action: CampaignAction): readonly NewsletterIssueStatus[] {
  return action === 'edit' ? EDITABLE_STATUSES : _TRANSITIONS[action].from;
}

/** Whether an issue in `current` may take the action. */
export function canApply(current: NewsletterIssueStatus, action: CampaignAction): boolean {
  return allowedFrom(action).includes(current);
}

/** How the refusal says what was asked: "Only a sending newsletter can be *paused*." */
const _PARTICIPLES: Readonly<Record<CampaignAction, string>> = {
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

/** "a draft", "sending": how a sentence names an issue's status. */
function _state(status: NewsletterIssueStatus): string {
  return status === 'draft' ? 'a draft' : status;
}

/** "a draft or scheduled", "a scheduled, sending or paused". */
function _statuses(statuses: readonly NewsletterIssueStatus[]): string {
  const words = [...statuses];
  const last = words.pop() ?? '';
  return `a ${words.length > 0 ? `${words.join(', ')} or ${last}` : last}`;
}

/**
 * The error of an action the issue's status does not allow: 409 `invalid_state`, saying where
 * the issue is and from where the action applies ("Newsletter 7 is sent; only a draft or
 * scheduled newsletter can be edited.").
 */
export function invalidTransition(
  id: number,
  current: NewsletterIssueStatus,
  action: CampaignAction,
): NewsletterError {
  return newsletterError(
    'invalid_state',
    `Newsletter ${id} is ${_state(current)}; only ${_statuses(allowedFrom(action))} newsletter can be ${_PARTICIPLES[action]}.`,
  );
}

/**
 * The status an action leads to from `current` (for `edit`, `current` itself), or the
 * `invalid_state` error when the action does not apply there. The store's conditional write
 * checks the same condition again: this only answers early and says why.
 */
export function nextStatus(
  id: number,
  current: NewsletterIssueStatus,
  action: CampaignAction,
): NewsletterIssueStatus | NewsletterError {
  if (!canApply(current, action)) return invalidTransition(id, current, action);
  return action === 'edit' ? current : _TRANSITIONS[action].to;
}
