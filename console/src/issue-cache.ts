/**
 * The issues as the issue routes last answered them in this session. The API has no read of
 * an issue's own fields (its lists, its web address): `GET /newsletters/{id}` gives subject,
 * content, status and counts, so the lists shown while editing come from the last answer.
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
