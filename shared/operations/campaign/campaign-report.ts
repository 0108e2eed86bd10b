import { type CampaignStore, recordSpaceOf } from '../../adapters/store/campaign-store-port.ts';
import type { EngagementStore } from '../../adapters/store/engagement-store-port.ts';
import { type CampaignRecord, settled } from '../../domain/campaign/campaign.ts';
import {
  countRecipients,
  noRecipients,
  outcomeOf,
  type RecipientCounts,
} from '../../domain/campaign/campaign-report.ts';
import {
  type EngagementFigures,
  rateOf,
  type TrackingMode,
} from '../../domain/engagement/engagement.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';

/** One recipient of a report: who, what became of their mail, when, and SES's message id. */
export interface ReportRow {
  /** Empty when the subscriber was deleted since: nothing of them is kept. */
  readonly email: string;
  readonly subscriber_id: number;
  readonly outcome: string;
  readonly at: string;
  readonly message_id: string;
  /**
   * First open and first click, only when `campaign.tracking` is `individual`
   * ([engagement.modes]); in `counts` mode they are kept to count each person once, never shown.
   */
  readonly opened_at?: string;
  readonly clicked_at?: string;
}

/** An issue's opens and clicks as a report shows them ([engagement.report]). */
export interface EngagementReport extends EngagementFigures {
  /** Opened and clicked as a percentage of the sent (one decimal). */
  readonly opened_rate: number;
  readonly clicked_rate: number;
  /** The tracking setting the report was read under. */
  readonly tracking: TrackingMode;
  /** What opens are worth: said in every report, since machine opens count. */
  readonly note: string;
}

/** Said with every figure of opens ([engagement.approximate-opens]). */
export const OPENS_NOTE =
  'Opens are approximate: mail privacy proxies (Apple Mail Privacy Protection, for one) ' +
  'fetch images unread, and clients that block images never report one. Clicks are the ' +
  'firmer figure.';

/** An issue's report: its state and the counts from its recipient records. */
export interface CampaignReport {
  readonly newsletter_id: number;
  readonly subject: string;
  readonly status: CampaignRecord['status'];
  readonly run: number;
  readonly sent_at: string | null;
  readonly counts: RecipientCounts;
  /** Opens and clicks, when the caller can read them. */
  readonly engagement?: EngagementReport;
}

/** Records read per page. */
const PAGE = 1_000;

/**
 * The report of an issue ([campaign.report]): every recipient record read once, page by page,
 * and counted (sent, skipped with the reasons, failed, not sent yet, and of the sent those who
 * unsubscribed through the issue's link, bounced or complained). With `onRows`, each page's
 * records also come as rows with the subscribers' addresses, read from the index by id (a
 * deleted subscriber's row has none).
 */
export async function campaignReport(
  deps: {
    readonly campaigns: CampaignStore;
    /** Opens and clicks, with the tracking setting that says what rows may show. */
    readonly engagement?: {
      readonly store: Pick<EngagementStore, 'figures'>;
      readonly tracking: TrackingMode;
    };
  },
  id: number,
  onRows?: (rows: readonly ReportRow[]) => Promise<void> | void,
): Promise<CampaignReport | NewsletterError> {
  const campaign = await deps.campaigns.getCampaign(id);
  if (!campaign) return newsletterError('not_found', `Newsletter ${id} does not exist.`);
  let counts = noRecipients();
  let after = 0;
  const individual = deps.engagement?.tracking === 'individual';
  for (;;) {
    const page = await deps.campaigns.recipientPage(recordSpaceOf(campaign), after, PAGE);
    counts = countRecipients(counts, page.recipients);
    if (onRows && page.recipients.length > 0) {
      const emails = await deps.campaigns.emailsOf(
        page.recipients.map((record) => record.subscriber_id),
      );
      await onRows(
        page.recipients.map((record) => ({
          email: emails.get(record.subscriber_id) ?? '',
          subscriber_id: record.subscriber_id,
          outcome: outcomeOf(record),
          at:
            record.complained_at ?? record.bounced_at ?? record.unsubscribed_at ?? record.at ?? '',
          message_id: record.message_id ?? '',
          ...(individual && record.opened_at ? { opened_at: record.opened_at } : {}),
          ...(individual && record.clicked_at ? { clicked_at: record.clicked_at } : {}),
        })),
      );
    }
    const last = page.recipients.at(-1);
    if (!page.more || !last) break;
    after = last.subscriber_id;
  }
  // Records are written as each turn ends: who the run planned and has not reached yet has
  // none, and is counted from the run's own counts.
  const unreached = Math.max(0, campaign.total - settled(campaign));
  counts = {
    ...counts,
    recipients: counts.recipients + unreached,
    unsent: counts.unsent + unreached,
  };
  const figures = deps.engagement ? await deps.engagement.store.figures(id) : undefined;
  return {
    newsletter_id: id,
    subject: campaign.subject,
    status: campaign.status,
    run: campaign.run,
    sent_at: campaign.sent_at,
    counts,
    ...(deps.engagement && figures
      ? {
          engagement: {
            ...figures,
            opened_rate: rateOf(figures.opened, counts.sent),
            clicked_rate: rateOf(figures.clicked, counts.sent),
            tracking: deps.engagement.tracking,
            note: OPENS_NOTE,
          },
        }
      : {}),
  };
}
