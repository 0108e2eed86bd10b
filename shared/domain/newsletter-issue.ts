import * as v from 'valibot';

/** A newsletter issue as `newsletters` returns it (decisions part 4); documents the API too. */
export const NewsletterIssueSchema = v.pipe(
  v.strictObject({
    id: v.pipe(v.number(), v.integer(), v.minValue(1)),
    subject: v.string(),
    status: v.pipe(
      v.picklist(['draft', 'scheduled', 'sending', 'paused', 'sent', 'cancelled']),
      v.description('Keyless callers see only sent issues.'),
    ),
    created: v.pipe(v.string(), v.isoTimestamp()),
    sent_at: v.pipe(
      v.nullable(v.pipe(v.string(), v.isoTimestamp())),
      v.description('When sending finished; null until then.'),
    ),
    url: v.optional(
      v.pipe(v.string(), v.url(), v.description('Public web version, when there is one.')),
    ),
    total: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.description('Recipients of its sending so far; keyed callers only.'),
      ),
    ),
    sent: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.description('Mails of it sent so far; keyed callers only.'),
      ),
    ),
  }),
  v.title('NewsletterIssue'),
);

/** Where a newsletter issue is in its life. */
export type NewsletterIssueStatus = v.InferOutput<typeof NewsletterIssueSchema>['status'];

/** A newsletter issue as `newsletters` returns it. */
export type NewsletterIssue = Readonly<v.InferOutput<typeof NewsletterIssueSchema>>;

/** A newsletter issue as stored: private issues are listed only to keyed callers. */
export interface NewsletterIssueRecord extends NewsletterIssue {
  readonly private: boolean;
}

/** Whether a keyless caller may see the issue: sent and not private. */
export function isPublicIssue(issue: NewsletterIssueRecord): boolean {
  return issue.status === 'sent' && !issue.private;
}

/**
 * Strips a record down to what a caller may see: keyed callers also get the sending counts
 * (`total` and `sent`, 0 before any send), as the original's rows had them.
 */
export function toNewsletterIssue(
  record: NewsletterIssueRecord,
  { counts = false }: { counts?: boolean } = {},
): NewsletterIssue {
  return {
    id: record.id,
    subject: record.subject,
    status: record.status,
    created: record.created,
    sent_at: record.sent_at,
    ...(record.url ? { url: record.url } : {}),
    ...(counts ? { total: record.total ?? 0, sent: record.sent ?? 0 } : {}),
  };
}
