/** Where a newsletter issue is in its life. */
export type NewsletterIssueStatus = 'draft' | 'sending' | 'sent';

/** A newsletter issue as `newsletters` returns it (decisions part 4). */
export interface NewsletterIssue {
  readonly id: number;
  readonly subject: string;
  readonly status: NewsletterIssueStatus;
  readonly created: string;
  /** When sending finished; null until then. */
  readonly sent_at: string | null;
  /** Public web version, when there is one. */
  readonly url?: string;
}

/** A newsletter issue as stored: private issues are listed only to keyed callers. */
export interface NewsletterIssueRecord extends NewsletterIssue {
  readonly private: boolean;
}

/** Whether a keyless caller may see the issue: sent and not private. */
export function isPublicIssue(issue: NewsletterIssueRecord): boolean {
  return issue.status === 'sent' && !issue.private;
}

/** Strips a record down to what callers may see. */
export function toNewsletterIssue(record: NewsletterIssueRecord): NewsletterIssue {
  return {
    id: record.id,
    subject: record.subject,
    status: record.status,
    created: record.created,
    sent_at: record.sent_at,
    ...(record.url ? { url: record.url } : {}),
  };
}
