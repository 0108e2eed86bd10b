import type { CampaignMailer, SendQuota } from '../../adapters/mail/campaign-mailer-port.ts';
import { recordSpaceOf } from '../../adapters/store/campaign-store-port.ts';
import type { CampaignRecord } from '../../domain/campaign/campaign.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';

/** Subscribers of the index read per page while counting. */
const COUNT_PAGE = 1_000;

/** How an issue's send compares with what the account may still send in 24 hours. */
export interface QuotaFit {
  /** Recipients the send would have now (a bound, when `counted` is false). */
  readonly recipients: number;
  /** Whether `recipients` was counted, or is the highest subscriber id (a bound it fits under). */
  readonly counted: boolean;
  /** Mails the account may still send in the next 24 hours. */
  readonly room: number;
  readonly fits: boolean;
}

/** Where SES's quota comes from. */
export type QuotaSource = Pick<CampaignMailer, 'sendQuota'>;

/**
 * Whether an issue's send fits in the account's daily quota ([campaign.quota]). The room is
 * `Max24HourSend − SentLast24Hours`. Counting recipients reads the list index, so it is
 * done only when the room is below the highest subscriber id, a bound of any send's
 * recipients: most sends fit without a read of the base.
 */
export async function quotaFit(
  deps: Pick<CampaignDependencies, 'campaigns'>,
  issue: CampaignRecord,
  newOnly: boolean,
  quota: SendQuota,
): Promise<QuotaFit> {
  const room = roomOf(quota);
  const highest = await deps.campaigns.lastSubscriberId();
  if (highest <= room) return { recipients: highest, counted: false, room, fits: true };
  const recipients = await countRecipients(deps, issue, newOnly, highest);
  return { recipients, counted: true, room, fits: recipients <= room };
}

/** Mails the account may still send in the next 24 hours: `Max24HourSend − SentLast24Hours`. */
export function roomOf(quota: SendQuota): number {
  return Math.max(0, Math.floor(quota.max24HourSend - quota.sentLast24Hours));
}

/**
 * How many the issue's send would reach now: the confirmed members of its lists with ids up to
 * `highest` (the list index, a page of 1,000 at a time, each member once whatever the lists it
 * shares), and with `newOnly` only those with no settled record of it yet. Never a scan.
 */
export async function countRecipients(
  deps: Pick<CampaignDependencies, 'campaigns'>,
  issue: CampaignRecord,
  newOnly: boolean,
  highest: number,
): Promise<number> {
  let recipients = 0;
  let after = 0;
  for (;;) {
    const page = await deps.campaigns.memberPage(issue.lists, after, highest, COUNT_PAGE);
    let ids = page.members.map((member) => member.id);
    if (newOnly && ids.length > 0) {
      const existing = await deps.campaigns.settledRecipients(recordSpaceOf(issue), ids);
      ids = ids.filter((id) => !existing.has(id));
    }
    recipients += ids.length;
    if (!page.more) return recipients;
    after = page.last;
  }
}

/** The sentence an operator reads before an issue that does not fit goes out. */
export function overQuotaMessage(id: number, fit: QuotaFit): string {
  const figure = (value: number) => value.toLocaleString('en-US');
  return `Newsletter ${id} goes to ${figure(fit.recipients)}; this account can send ${figure(fit.room)} more in the next 24 hours; it will pause when the quota runs out and go on by itself when there is room again.`;
}

/** The error value of a send refused for the quota, until the caller accepts it. */
export function overQuota(id: number, fit: QuotaFit): NewsletterError {
  return newsletterError(
    'over_quota',
    `${overQuotaMessage(id, fit)} Send it with accept_quota to go on.`,
  );
}

/** What an operator reads when SES's quota could not be asked: the send goes on unchecked. */
export const QUOTA_UNKNOWN_MESSAGE =
  "SES's sending quota could not be read; sending anyway (a send that exhausts the daily quota pauses and goes on by itself).";
