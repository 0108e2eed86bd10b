/** What `newsletters` shows of an issue: every status to keyed callers, with the counts. */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  isPublicIssue,
  type NewsletterIssueRecord,
  NewsletterIssueSchema,
  type NewsletterIssueStatus,
  toNewsletterIssue,
} from '../../../shared/domain/newsletter-issue.ts';

const STATUSES: readonly NewsletterIssueStatus[] = [
  'draft',
  'scheduled',
  'sending',
  'paused',
  'sent',
  'cancelled',
];

const record = (
  status: NewsletterIssueStatus,
  extra: Partial<NewsletterIssueRecord> = {},
): NewsletterIssueRecord => ({
  id: 3,
  subject: 'Autumn news',
  status,
  created: '2026-10-01T08:00:00.000Z',
  sent_at: status === 'sent' ? '2026-10-02T08:00:00.000Z' : null,
  private: false,
  ...extra,
});

describe('[campaign.listing] the newsletters listing', () => {
  it('describes every status, and the counts as non-negative integers', () => {
    for (const status of STATUSES) {
      expect(v.safeParse(NewsletterIssueSchema, toNewsletterIssue(record(status))).success).toBe(
        true,
      );
    }
    const counted = toNewsletterIssue(record('sending', { total: 10, sent: 4 }), { counts: true });
    expect(v.safeParse(NewsletterIssueSchema, counted).success).toBe(true);
    expect(v.safeParse(NewsletterIssueSchema, { ...counted, sent: -1 }).success).toBe(false);
    expect(v.safeParse(NewsletterIssueSchema, { ...counted, total: 1.5 }).success).toBe(false);
  });

  it('gives keyed callers total and sent (0 before any send), keyless callers neither', () => {
    // Act
    const keyed = toNewsletterIssue(record('sending', { total: 10, sent: 4 }), { counts: true });
    const fresh = toNewsletterIssue(record('draft'), { counts: true });
    const keyless = toNewsletterIssue(record('sent', { total: 10, sent: 10 }));

    // Assert
    expect(keyed).toMatchObject({ total: 10, sent: 4 });
    expect(fresh).toMatchObject({ total: 0, sent: 0 });
    expect(keyless).not.toHaveProperty('total');
    expect(keyless).not.toHaveProperty('sent');
  });

  it('shows the web version URL when the issue has one', () => {
    const url = 'https://news.example.com/api/newsletters/3/view';
    expect(toNewsletterIssue(record('sent', { url }))).toMatchObject({ url });
    expect(toNewsletterIssue(record('sent'))).not.toHaveProperty('url');
  });

  it('shows keyless callers only sent issues that are not private', () => {
    const visible = STATUSES.flatMap((status) =>
      [false, true]
        .filter((hidden) => isPublicIssue(record(status, { private: hidden })))
        .map((hidden) => `${status}${hidden ? ' private' : ''}`),
    );
    expect(visible).toEqual(['sent']);
  });
});
