import type { CampaignStore } from '../../adapters/store/campaign-store-port.ts';
import type { CampaignRecord } from '../../domain/campaign/campaign.ts';
import {
  countRecipients,
  noRecipients,
  outcomeOf,
  type RecipientCounts,
} from '../../domain/campaign/campaign-report.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';

/** One recipient of a report: who, what became of their mail, when, and SES's message id. */
export interface ReportRow {
  /** Empty when the subscriber was deleted since: nothing of them is kept. */
  readonly email: string;
  readonly subscriber_id: number;
  readonly outcome: string;
  readonly at: string;
  readonly message_id: string;
}

/** An issue's report: its state and the counts from its recipient records. */
export interface CampaignReport {
  readonly newsletter_id: number;
  readonly subject: string;
  readonly status: CampaignRecord['status'];
  readonly run: number;
  readonly sent_at: string | null;
  readonly counts: RecipientCounts;
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
  deps: { readonly campaigns: CampaignStore },
  id: number,
  onRows?: (rows: readonly ReportRow[]) => Promise<void> | void,
): Promise<CampaignReport | NewsletterError> {
  const campaign = await deps.campaigns.getCampaign(id);
  if (!campaign) return newsletterError('not_found', `Newsletter ${id} does not exist.`);
  let counts = noRecipients();
  let after = 0;
  for (;;) {
    const page = await deps.campaigns.recipientPage(id, after, PAGE);
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
        })),
      );
    }
    const last = page.recipients.at(-1);
    if (!page.more || !last) break;
    after = last.subscriber_id;
  }
  return {
    newsletter_id: id,
    subject: campaign.subject,
    status: campaign.status,
    run: campaign.run,
    sent_at: campaign.sent_at,
    counts,
  };
}
