/**
 * The issues as the issue routes last answered them in this session: what a page shows at
 * once after an action, before `GET /newsletters/{id}` (which also gives a signed-in caller
 * the issue's lists, schedule and web address) is read again.
 */
import type { Issue } from './types.ts';

const issues = new Map<number, Issue>();

/** Keeps what an issue route answered. */
export function remember(issue: Issue): Issue {
  issues.set(issue.id, issue);
  return issue;
}

/** The last answer about an issue, if this session had one. */
export function recall(id: number): Issue | undefined {
  return issues.get(id);
}
