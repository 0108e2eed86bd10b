import { DependencyError, describeError, type NewsletterError } from '../../domain/errors.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';
import { notFound } from './control-campaign.ts';
import {
  countRecipients,
  overQuotaMessage,
  QUOTA_UNKNOWN_MESSAGE,
  type QuotaSource,
  roomOf,
} from './quota-fit.ts';

/** Who an issue's send would reach now, and whether that fits SES's daily quota. */
export interface IssueAudience {
  readonly newsletter_id: number;
  /** Whether this is the audience of a send to the new (`new_only`). */
  readonly new_only: boolean;
  /** How many the send would reach now, counted from the list index. */
  readonly recipients: number;
  /** SES's daily quota now; null when SES could not be asked. */
  readonly quota: {
    readonly max_24_hour_send: number;
    readonly sent_last_24_hours: number;
    /** What the account may still send in the next 24 hours. */
    readonly room: number;
  } | null;
  /** Whether `recipients` fits in `room`; null when the quota is unknown. */
  readonly fits: boolean | null;
  /**
   * What `send` would say: the over-quota sentence (a send is refused until accepted), or that
   * the quota is unknown (a send goes on unchecked); null when it fits.
   */
  readonly warning: string | null;
}

/**
 * The audience of an issue as `send` would decide it ([v2.audience], [campaign.quota]): the
 * recipients of its lists now (with `newOnly`, those it has not reached), SES's quota, and the
 * same fit and sentence a send gets. Unlike a send, the recipients are always counted (the
 * console shows the figure); a send counts them only when the room is below the highest id.
 */
export async function issueAudience(
  deps: Pick<CampaignDependencies, 'campaigns' | 'log'>,
  id: number,
  newOnly: boolean,
  source: QuotaSource,
): Promise<IssueAudience | NewsletterError> {
  const issue = await deps.campaigns.getCampaign(id);
  if (!issue) return notFound(id);
  const highest = await deps.campaigns.lastSubscriberId();
  const recipients = await countRecipients(deps, issue, newOnly, highest);
  const base = { newsletter_id: id, new_only: newOnly, recipients };
  let quota: Awaited<ReturnType<QuotaSource['sendQuota']>>;
  try {
    quota = await source.sendQuota();
  } catch (error) {
    if (!(error instanceof DependencyError)) throw error;
    deps.log.warn('send_quota_unknown', { newsletter_id: id, cause: describeError(error) });
    return { ...base, quota: null, fits: null, warning: QUOTA_UNKNOWN_MESSAGE };
  }
  const room = roomOf(quota);
  const fits = recipients <= room;
  return {
    ...base,
    quota: {
      max_24_hour_send: quota.max24HourSend,
      sent_last_24_hours: quota.sentLast24Hours,
      room,
    },
    fits,
    warning: fits ? null : overQuotaMessage(id, { recipients, counted: true, room, fits }),
  };
}
