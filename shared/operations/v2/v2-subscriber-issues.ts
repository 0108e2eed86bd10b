import type {
  DynamoSubscriberHistory,
  ReachedIssue,
  ReachedIssuesPage,
} from '../../adapters/store/dynamo-subscriber-history.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';
import {
  findSubscriber,
  subscriberNotFound,
  type V2SubscriberDependencies,
} from './v2-subscribers.ts';

/** Issues that went out read per page: one BatchGetItem of their records (100 keys). */
export const SUBSCRIBER_ISSUES_PAGE = 50;

/**
 * `GET /subscribers/{id}/issues` (ours): the issues the subscriber's turn came in, newest
 * first, with how it ended ([v2.subscriber-issues]); `before` (an issue id, from the `Link`
 * of the page before) reads further back. Their first open and click only in `individual`
 * tracking ([engagement.modes]): in `counts` and `off` nothing of it is shown, whatever a record
 * still holds from before a switch (the eraser takes it, [engagement.switch]).
 */
export async function v2SubscriberIssues(
  deps: V2SubscriberDependencies & {
    readonly history: Pick<DynamoSubscriberHistory, 'issuesOf'>;
  },
  reference: string,
  rawBefore: unknown,
): Promise<ReachedIssuesPage | NewsletterError> {
  let before: number | undefined;
  if (rawBefore !== undefined && rawBefore !== '') {
    if (typeof rawBefore !== 'string' || !/^[1-9]\d{0,14}$/.test(rawBefore))
      return newsletterError('invalid_parameter', 'before must be an issue id (digits)');
    before = Number(rawBefore);
  }
  const record = await findSubscriber(deps, reference);
  if (!record) return subscriberNotFound();
  const page = await deps.history.issuesOf(record.id, before, SUBSCRIBER_ISSUES_PAGE);
  if ((await deps.settings()).campaign.tracking === 'individual') return page;
  return { ...page, issues: page.issues.map(withoutEngagement) };
}

/** An issue as `counts` and `off` show it: how the turn ended, no open or click. */
function withoutEngagement(issue: ReachedIssue): ReachedIssue {
  const { opened_at: _opened, clicked_at: _clicked, ...rest } = issue;
  return rest;
}
