import type { RecipientRecord, RecipientState, SkipReason } from './recipient.ts';

/** What became of an issue's recipients, counted from their records ([campaign.report]). */
export interface RecipientCounts {
  readonly recipients: number;
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
  /** Not sent yet: pending, or claimed by a worker right now. */
  readonly unsent: number;
  /** Left through this unsubscribe link. */
  readonly unsubscribed: number;
  /** SES reported a permanent bounce of this mail. */
  readonly bounced: number;
  /** SES reported a complaint about this mail. */
  readonly complained: number;
  /** The skipped, by why. */
  readonly skipped_by_reason: Readonly<Partial<Record<SkipReason, number>>>;
}

/** An empty tally to add records to. */
export function noRecipients(): RecipientCounts {
  return {
    recipients: 0,
    sent: 0,
    skipped: 0,
    failed: 0,
    unsent: 0,
    unsubscribed: 0,
    bounced: 0,
    complained: 0,
    skipped_by_reason: {},
  };
}

const OUTCOME: Readonly<Record<RecipientState, 'sent' | 'skipped' | 'failed' | 'unsent'>> = {
  pending: 'unsent',
  sending: 'unsent',
  sent: 'sent',
  skipped: 'skipped',
  failed: 'failed',
};

/** Adds records to a tally: each record counts once, in exactly one outcome. */
export function countRecipients(
  counts: RecipientCounts,
  records: readonly RecipientRecord[],
): RecipientCounts {
  let next = { ...counts, skipped_by_reason: { ...counts.skipped_by_reason } };
  for (const record of records) {
    const outcome = OUTCOME[record.state];
    next = {
      ...next,
      recipients: next.recipients + 1,
      [outcome]: next[outcome] + 1,
      unsubscribed: next.unsubscribed + (record.unsubscribed_at ? 1 : 0),
      bounced: next.bounced + (record.bounced_at ? 1 : 0),
      complained: next.complained + (record.complained_at ? 1 : 0),
    };
    if (record.state === 'skipped' && record.reason)
      next.skipped_by_reason[record.reason] = (next.skipped_by_reason[record.reason] ?? 0) + 1;
  }
  return next;
}

/** The outcome of one recipient as a report row says it. */
export function outcomeOf(record: RecipientRecord): string {
  if (record.complained_at) return 'complained';
  if (record.bounced_at) return 'bounced';
  if (record.unsubscribed_at) return 'unsubscribed';
  if (record.state === 'skipped') return `skipped: ${record.reason ?? 'unknown'}`;
  return OUTCOME[record.state] === 'unsent' ? 'not sent yet' : record.state;
}
