/** An issue's report: its recipient records counted, and each one's outcome as a row says it. */
import { describe, expect, it } from 'vitest';
import type { CampaignStore } from '../../../shared/adapters/store/campaign-store-port.ts';
import type { CampaignRecord } from '../../../shared/domain/campaign/campaign.ts';
import {
  countRecipients,
  noRecipients,
  outcomeOf,
  type RecipientCounts,
} from '../../../shared/domain/campaign/campaign-report.ts';
import type { RecipientRecord } from '../../../shared/domain/campaign/recipient.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import {
  campaignReport,
  type ReportRow,
} from '../../../shared/operations/campaign/campaign-report.ts';

let nextId = 1;
const record = (
  state: RecipientRecord['state'],
  extra: Partial<RecipientRecord> = {},
): RecipientRecord => ({
  newsletter_id: 7,
  subscriber_id: nextId++,
  state,
  run: 1,
  attempts: state === 'pending' ? 0 : 1,
  ...extra,
});

const AT = '2026-12-01T09:00:00.000Z';

describe('[campaign.report] counting recipient records', () => {
  it('[campaign.report] starts from nothing', () => {
    expect(noRecipients()).toEqual<RecipientCounts>({
      recipients: 0,
      sent: 0,
      skipped: 0,
      failed: 0,
      unsent: 0,
      unsubscribed: 0,
      bounced: 0,
      complained: 0,
      skipped_by_reason: {},
    });
  });

  it('[campaign.report] counts each record once in one outcome, and of the sent who left, bounced or complained', () => {
    // Arrange
    const records = [
      record('pending'),
      record('sending'),
      record('sent'),
      record('sent', { unsubscribed_at: AT }),
      record('sent', { bounced_at: AT }),
      record('sent', { complained_at: AT }),
      record('skipped', { reason: 'unsubscribed' }),
      record('skipped', { reason: 'unsubscribed' }),
      record('skipped', { reason: 'off_lists' }),
      record('skipped'),
      record('failed'),
    ];

    // Act
    const counts = countRecipients(noRecipients(), records);

    // Assert
    expect(counts).toEqual<RecipientCounts>({
      recipients: 11,
      sent: 4,
      skipped: 4,
      failed: 1,
      unsent: 2,
      unsubscribed: 1,
      bounced: 1,
      complained: 1,
      skipped_by_reason: { unsubscribed: 2, off_lists: 1 },
    });
  });

  it('[campaign.report] adds a page of records to a tally without changing the tally it was given', () => {
    // Arrange
    const first = countRecipients(noRecipients(), [
      record('skipped', { reason: 'deleted' }),
      record('sent'),
    ]);
    const before = structuredClone(first);

    // Act
    const both = countRecipients(first, [
      record('skipped', { reason: 'deleted' }),
      record('failed'),
    ]);

    // Assert
    expect(both).toEqual<RecipientCounts>({
      recipients: 4,
      sent: 1,
      skipped: 2,
      failed: 1,
      unsent: 0,
      unsubscribed: 0,
      bounced: 0,
      complained: 0,
      skipped_by_reason: { deleted: 2 },
    });
    expect(first).toEqual(before);
  });
});

describe('[campaign.report] the outcome a report row gives', () => {
  it.each<[string, RecipientRecord, string]>([
    ['pending', record('pending'), 'not sent yet'],
    ['claimed by a worker', record('sending'), 'not sent yet'],
    ['sent', record('sent'), 'sent'],
    ['failed', record('failed'), 'failed'],
    ['skipped, with why', record('skipped', { reason: 'not_confirmed' }), 'skipped: not_confirmed'],
    ['skipped, without why', record('skipped'), 'skipped: unknown'],
    ['left through the link', record('sent', { unsubscribed_at: AT }), 'unsubscribed'],
    ['bounced, having left', record('sent', { unsubscribed_at: AT, bounced_at: AT }), 'bounced'],
    [
      'complained, having bounced and left',
      record('sent', { unsubscribed_at: AT, bounced_at: AT, complained_at: AT }),
      'complained',
    ],
  ])('[campaign.report] says %s', (_case, recipient, expected) => {
    expect(outcomeOf(recipient)).toBe(expected);
  });
});

/**
 * A campaign store holding issue 7 and its recipient records, answering at most `pageSize` of
 * them per page whatever limit is asked (as DynamoDB does when a page reaches 1 MB), and noting
 * where each page read started.
 */
function storeOf(records: readonly RecipientRecord[], pageSize: number) {
  const starts: number[] = [];
  // Only what campaignReport calls; the rest of the port is never reached.
  const campaigns = {
    getCampaign: async (id: number) =>
      id === 7
        ? ({
            id: 7,
            subject: 'Autumn news',
            status: 'sent',
            run: 1,
            sent_at: AT,
            // A run from before records were written at each turn's end: its unsent one has one.
            total: 6,
            sent: 4,
            skipped: 1,
            failed: 1,
          } as CampaignRecord)
        : undefined,
    recipientPage: async (_space: unknown, after: number, limit: number) => {
      starts.push(after);
      const rest = records.filter((each) => each.subscriber_id > after);
      const recipients = rest.slice(0, Math.min(limit, pageSize));
      return { recipients, more: rest.length > recipients.length };
    },
    emailsOf: async (ids: readonly number[]) =>
      new Map(ids.map((id) => [id, `reader${id}@example.com`])),
  } as unknown as CampaignStore;
  return { campaigns, starts };
}

describe('[campaign.report] the report of an issue, page by page', () => {
  const SENT = '2026-12-01T09:00:01.000Z';
  const LEFT = '2026-12-02T10:00:00.000Z';
  const BOUNCED = '2026-12-01T09:05:00.000Z';
  const COMPLAINED = '2026-12-03T11:00:00.000Z';
  const sent = (id: number, extra: Partial<RecipientRecord> = {}) =>
    record('sent', { subscriber_id: id, at: SENT, message_id: `msg-${id}`, ...extra });
  const records = [
    record('pending', { subscriber_id: 1 }),
    sent(2),
    sent(3, { unsubscribed_at: LEFT }),
    sent(4, { bounced_at: BOUNCED, unsubscribed_at: LEFT }),
    sent(5, { complained_at: COMPLAINED, bounced_at: BOUNCED }),
    record('skipped', { subscriber_id: 6, reason: 'deleted', at: SENT }),
    record('failed', { subscriber_id: 7, at: SENT, error: 'rejected' }),
  ];

  it('gives one row per record, read once, with the time of its outcome and its message id', async () => {
    // Arrange: pages of three, so the records come in three pages.
    const { campaigns, starts } = storeOf(records, 3);
    const rows: ReportRow[] = [];

    // Act
    const report = await campaignReport({ campaigns }, 7, (page) => {
      rows.push(...page);
    });

    // Assert
    expect(
      rows.map(({ subscriber_id, outcome, at, message_id }) => [
        subscriber_id,
        outcome,
        at,
        message_id,
      ]),
    ).toEqual([
      [1, 'not sent yet', '', ''],
      [2, 'sent', SENT, 'msg-2'],
      [3, 'unsubscribed', LEFT, 'msg-3'],
      [4, 'bounced', BOUNCED, 'msg-4'],
      [5, 'complained', COMPLAINED, 'msg-5'],
      [6, 'skipped: deleted', SENT, ''],
      [7, 'failed', SENT, ''],
    ]);
    expect(rows[0]?.email).toBe('reader1@example.com');
    expect(report).toMatchObject({ newsletter_id: 7, subject: 'Autumn news', status: 'sent' });
    expect(isNewsletterError(report) ? undefined : report.counts).toMatchObject({
      recipients: 7,
      sent: 4,
      unsent: 1,
    });
    // Each page once, each after the last record of the one before; no read past the last.
    expect(starts).toEqual([0, 3, 6]);
  });

  it('counts without rows when nobody asks for them, and names an unknown issue', async () => {
    // Arrange
    const { campaigns, starts } = storeOf(records, 3);

    // Act
    const report = await campaignReport({ campaigns }, 7);

    // Assert
    expect(isNewsletterError(report) ? undefined : report.counts).toMatchObject({
      recipients: 7,
      sent: 4,
      skipped: 1,
      failed: 1,
      unsent: 1,
    });
    expect(starts).toEqual([0, 3, 6]);
    expect(await campaignReport({ campaigns }, 8)).toMatchObject({
      code: 'not_found',
      message: 'Newsletter 8 does not exist.',
    });
  });
});
