/** An issue's report: its recipient records counted, and each one's outcome as a row says it. */
import { describe, expect, it } from 'vitest';
import {
  countRecipients,
  noRecipients,
  outcomeOf,
  type RecipientCounts,
} from '../../../shared/domain/campaign/campaign-report.ts';
import type { RecipientRecord } from '../../../shared/domain/campaign/recipient.ts';

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
