import {
  type CampaignStore,
  type RecordSpace,
  recordSpaceOf,
} from '../../adapters/store/campaign-store-port.ts';
import type { EngagementStore } from '../../adapters/store/engagement-store-port.ts';
import { type CampaignRecord, settled } from '../../domain/campaign/campaign.ts';
import {
  countRecipients,
  noRecipients,
  outcomeOf,
  type RecipientCounts,
} from '../../domain/campaign/campaign-report.ts';
import type { RecipientRecord } from '../../domain/campaign/recipient.ts';
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
    if (onRows && page.recipients.length > 0)
      await onRows(await rowsOf(deps.campaigns, page.recipients, individual));
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

/**
 * One page of recipient records as report rows, with the subscribers' addresses read in one
 * lookup (a deleted subscriber's row has none); first open and click only in `individual`
 * tracking ([engagement.modes]).
 */
async function rowsOf(
  campaigns: Pick<CampaignStore, 'emailsOf'>,
  records: readonly RecipientRecord[],
  individual: boolean,
): Promise<ReportRow[]> {
  const emails = await campaigns.emailsOf(records.map((record) => record.subscriber_id));
  return records.map((record) => ({
    email: emails.get(record.subscriber_id) ?? '',
    subscriber_id: record.subscriber_id,
    outcome: outcomeOf(record),
    at: record.complained_at ?? record.bounced_at ?? record.unsubscribed_at ?? record.at ?? '',
    message_id: record.message_id ?? '',
    ...(individual && record.opened_at ? { opened_at: record.opened_at } : {}),
    ...(individual && record.clicked_at ? { clicked_at: record.clicked_at } : {}),
  }));
}

/** Where a run of report rows stopped: the subscriber id to go on after, while rows remain. */
export interface ReportRowsEnd {
  readonly next?: number;
}

/**
 * An issue's report rows from the subscriber id `after` on, one page of its recipient records
 * at a time and at most `maxPages` pages ([v2.report-csv]): each page is read, its addresses
 * looked up, and handed to `onPage` before the next is read, so a caller holds one page at a
 * time. `onPage` answers false to stop before a page (it did not take it); then, or once
 * `maxPages` were read, `next` says where to go on. The caller must take the first page, or it
 * would never get further. Counts nothing (the JSON report does, [campaign.report]), and
 * shows no opens or clicks (the CLI's CSV does in `individual` tracking).
 */
export async function reportRows(
  campaigns: Pick<CampaignStore, 'recipientPage' | 'emailsOf'>,
  space: RecordSpace,
  options: {
    readonly after: number;
    readonly maxPages: number;
    readonly onPage: (rows: readonly ReportRow[]) => boolean | Promise<boolean>;
  },
): Promise<ReportRowsEnd> {
  let after = options.after;
  for (let read = 0; read < options.maxPages; read += 1) {
    const page = await campaigns.recipientPage(space, after, PAGE);
    const last = page.recipients.at(-1);
    if (!last) return {};
    if (!(await options.onPage(await rowsOf(campaigns, page.recipients, false))))
      return { next: after };
    if (!page.more) return {};
    after = last.subscriber_id;
  }
  return { next: after };
}
