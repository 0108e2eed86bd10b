import { type NewsletterIssue, toNewsletterIssue } from '../domain/newsletter-issue.ts';
import type { CallContext, Dependencies } from './dependencies.ts';

/** How many newsletters `newsletters` returns (interface part 8). */
export const NEWSLETTERS_LIMIT = 10;

/**
 * `newsletters`: the 10 most recently created, newest first. Keyless callers read a sparse
 * index holding only sent, non-private issues, so drafts never cost them a read unit; keyed
 * callers see every state, with the sending counts.
 */
export async function listNewsletters(
  deps: Dependencies,
  context: CallContext,
): Promise<NewsletterIssue[]> {
  const records = await deps.store.recentNewsletterIssues(NEWSLETTERS_LIMIT, context.trusted);
  return records.map((record) => toNewsletterIssue(record, { counts: context.trusted }));
}
