/** The lifecycle of an issue: which action applies from which status, and the refusal. */
import { describe, expect, it } from 'vitest';
import {
  allowedFrom,
  type CampaignAction,
  canApply,
  EDITABLE_STATUSES,
  invalidTransition,
  nextStatus,
  type StatusChange,
  transitionOf,
} from '../../../shared/domain/campaign/campaign-status.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import type { NewsletterIssueStatus } from '../../../shared/domain/newsletter-issue.ts';

const STATUSES: readonly NewsletterIssueStatus[] = [
  'draft',
  'scheduled',
  'sending',
  'paused',
  'sent',
  'cancelled',
];

const CHANGES: readonly StatusChange[] = [
  'send',
  'schedule',
  'unschedule',
  'pause',
  'resume',
  'cancel',
  'complete',
  'auto_pause',
  'resend_new',
];

const ACTIONS: readonly CampaignAction[] = [...CHANGES, 'edit'];

describe('[campaign.lifecycle] an issue moves only along the lifecycle', () => {
  it.each([
    ['send', ['draft', 'scheduled'], 'sending'],
    ['schedule', ['draft'], 'scheduled'],
    ['unschedule', ['scheduled'], 'draft'],
    ['pause', ['sending'], 'paused'],
    ['resume', ['paused'], 'sending'],
    ['cancel', ['scheduled', 'sending', 'paused'], 'cancelled'],
    ['complete', ['sending'], 'sent'],
    ['auto_pause', ['sending'], 'paused'],
    ['resend_new', ['sent'], 'sending'],
  ] as const)('%s goes from %j to %s', (action, from, to) => {
    // Act
    const transition = transitionOf(action);

    // Assert
    expect(transition).toEqual({ from, to });
  });

  it('allows content edits in draft and scheduled only, keeping the status', () => {
    // Arrange
    const results = STATUSES.map((status) => [status, nextStatus(1, status, 'edit')] as const);

    // Assert
    expect(EDITABLE_STATUSES).toEqual(['draft', 'scheduled']);
    for (const [status, result] of results) {
      if (EDITABLE_STATUSES.includes(status)) expect(result).toBe(status);
      else expect(isNewsletterError(result) && result.code).toBe('invalid_state');
    }
  });

  it('answers every action from every status with its transition or a 409 invalid_state', () => {
    for (const status of STATUSES) {
      for (const action of ACTIONS) {
        // Act
        const result = nextStatus(4, status, action);

        // Assert
        if (allowedFrom(action).includes(status)) {
          expect(canApply(status, action)).toBe(true);
          expect(result).toBe(action === 'edit' ? status : transitionOf(action).to);
        } else {
          expect(canApply(status, action)).toBe(false);
          expect(result).toEqual(invalidTransition(4, status, action));
          expect(isNewsletterError(result) && result.status).toBe(409);
        }
      }
    }
  });

  it('lets nothing leave cancelled, and a sent issue only send to the new', () => {
    // Assert
    expect(ACTIONS.filter((action) => canApply('cancelled', action))).toEqual([]);
    expect(ACTIONS.filter((action) => canApply('sent', action))).toEqual(['resend_new']);
  });

  it('reaches every status from a draft, and sent and cancelled from sending', () => {
    // Arrange: a breadth-first walk over the transitions
    const reached = new Set<NewsletterIssueStatus>(['draft']);
    let frontier: NewsletterIssueStatus[] = ['draft'];
    while (frontier.length > 0) {
      frontier = frontier.flatMap((status) =>
        CHANGES.filter((action) => canApply(status, action))
          .map((action) => transitionOf(action).to)
          .filter((to) => !reached.has(to) && reached.add(to)),
      );
    }

    // Assert
    expect([...reached].sort()).toEqual([...STATUSES].sort());
  });

  it('says where the issue is and from where the action applies', () => {
    // Assert
    expect(invalidTransition(7, 'sent', 'edit').message).toBe(
      'Newsletter 7 is sent; only a draft or scheduled newsletter can be edited.',
    );
    expect(invalidTransition(3, 'draft', 'pause').message).toBe(
      'Newsletter 3 is a draft; only a sending newsletter can be paused.',
    );
    expect(invalidTransition(9, 'cancelled', 'cancel').message).toBe(
      'Newsletter 9 is cancelled; only a scheduled, sending or paused newsletter can be cancelled.',
    );
    expect(invalidTransition(2, 'paused', 'resend_new').message).toBe(
      'Newsletter 2 is paused; only a sent newsletter can be sent to new subscribers.',
    );
  });
});
