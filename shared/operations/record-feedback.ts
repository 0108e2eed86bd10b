import type { CampaignStore } from '../adapters/store/campaign-store-port.ts';
import {
  decideFeedback,
  type FeedbackOutcome,
  type MailFeedback,
  type RecipientFeedback,
} from '../domain/decide-feedback.ts';
import { isNewsletterError, type NewsletterError } from '../domain/errors.ts';
import type { SubscriberRecord } from '../domain/subscriber.ts';
import type { Dependencies } from './dependencies.ts';
import { CONFLICT, retryOnConflict } from './retry-on-conflict.ts';

/** What the feedback did to one recipient; addresses that are no subscriber are left alone. */
export interface RecipientOutcome {
  readonly outcome: FeedbackOutcome | 'not_subscriber';
  /** The subscriber's id, for the log line (never its address). */
  readonly subscriberId?: number;
}

/**
 * Applies the mail service's feedback about one mail to each recipient that is a subscriber
 * (docs/behaviour.md, "Feedback"): read, decide, write conditionally on the version read, and
 * on a lost race decide again from a fresh read. Applying the same feedback twice changes
 * nothing the second time, so a redelivered notification or a retried invocation is harmless.
 * The settings are read only for a soft bounce, the one rule that needs them.
 */
export async function recordFeedback(
  deps: Pick<Dependencies, 'store' | 'settings' | 'now' | 'log' | 'metrics'> & {
    /** Where a campaign mail's bounce or complaint is noted on its recipient record. */
    readonly campaigns?: Pick<CampaignStore, 'markFeedback'>;
  },
  feedback: MailFeedback,
): Promise<RecipientOutcome[] | NewsletterError> {
  const judged: RecipientFeedback =
    feedback.kind === 'soft-bounce'
      ? {
          kind: 'soft-bounce',
          mailId: feedback.mailId,
          limit: (await deps.settings()).transient_bounce_limit,
        }
      : { kind: feedback.kind };
  const outcomes: RecipientOutcome[] = [];
  for (const email of new Set(feedback.recipients)) {
    const outcome = await retryOnConflict('record_feedback', deps.log, async () => {
      const current = await deps.store.getSubscriber(email);
      if (!current) return { outcome: 'not_subscriber' } as const;
      const decision = decideFeedback(current, judged, deps.now());
      if (decision.next) {
        const next: SubscriberRecord = { ...decision.next, version: current.version + 1 };
        if (!(await deps.store.replaceSubscriber(next, current))) return CONFLICT;
        if (decision.outcome === 'bounced') deps.metrics.count('Bounces');
        if (decision.outcome === 'complained') deps.metrics.count('Complaints');
      }
      return { outcome: decision.outcome, subscriberId: current.id };
    });
    if (isNewsletterError(outcome)) return outcome;
    // A campaign mail's bounce or complaint counts against its issue ([campaign.report]): the
    // record of that subscriber, only if it holds this very mail's message id.
    const noted =
      feedback.kind === 'hard-bounce'
        ? 'bounced'
        : feedback.kind === 'complaint'
          ? 'complained'
          : undefined;
    if (
      noted &&
      feedback.newsletterId !== undefined &&
      outcome.subscriberId !== undefined &&
      deps.campaigns
    )
      await deps.campaigns.markFeedback(
        feedback.newsletterId,
        outcome.subscriberId,
        feedback.mailId,
        noted,
        deps.now(),
      );
    outcomes.push(outcome);
  }
  return outcomes;
}
