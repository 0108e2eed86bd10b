import type { AccountRefusal } from '../../domain/campaign/campaign.ts';
import type { RenderedCampaign } from '../../domain/campaign/prepared-campaign.ts';
import type { Settings } from '../../domain/settings-schema.ts';

/** One campaign mail, rendered: the worker decided it is due and built its parts and link. */
export interface CampaignMail {
  readonly to: string;
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  /**
   * The same parts cut where recipients differ, as a prepared campaign renders them: a mailer
   * may encode their fixed pieces once for all the mails that share them.
   */
  readonly pieces?: RenderedCampaign['pieces'];
  /** Sent as `List-Unsubscribe` with RFC 8058 one-click, and linked in the body. */
  readonly unsubscribeUrl: string;
  /** SES message tags: which issue and run, so SES's events tell where a bounce came from. */
  readonly tags: Readonly<Record<string, string>>;
  /**
   * Whether SES should report the mail's delivery too: only a delivery to a recipient with
   * bounces counted changes anything ([campaign.feedback-cost]).
   */
  readonly reportDelivery: boolean;
  /**
   * Whether SES tracks its opens and clicks ([engagement.tracking]): sent with a tracked
   * configuration set. Absent or false for test mails and `campaign.tracking: off`.
   */
  readonly track?: boolean;
}

/**
 * Why SES did not take a mail, as far as the campaign cares: `throttled` (over the sending
 * rate: SES drops the message, so it is put back and sent later), `unavailable` (SES could not
 * be reached or failed: the same, and it counts as a failure in a row), `unknown` (the call got
 * no answer: SES may have taken the mail, so it is put back and its link kept), `quota` (the
 * account's daily quota is used up: the campaign pauses until there is room), `account` (a
 * refusal about the account or the sender, the same for every recipient: the campaign
 * pauses), `rejected` (SES refused this message, for its recipient: that attempt failed).
 */
export type CampaignSendFailure =
  | 'throttled'
  | 'unavailable'
  | 'unknown'
  | 'quota'
  | 'account'
  | 'rejected';

/** SES did not take a campaign mail. */
export class CampaignSendError extends Error {
  override readonly name = 'CampaignSendError';
  constructor(
    readonly failure: CampaignSendFailure,
    message: string,
    options: { readonly cause: unknown; readonly refusal?: AccountRefusal },
  ) {
    super(message, { cause: options.cause });
    this.refusal = options.refusal;
  }
  /** For an `account` failure, what SES refused. */
  readonly refusal: AccountRefusal | undefined;
}

/** SES's sending quota (GetSendQuota). */
export interface SendQuota {
  /** Mails per second the account may send. */
  readonly maxSendRate: number;
  /** Mails per 24 hours the account may send. */
  readonly max24HourSend: number;
  /** Mails it sent in the last 24 hours. */
  readonly sentLast24Hours: number;
}

/** Sends campaign mail. */
export interface CampaignMailer {
  /** Sends one mail from the settings' sender; its SES message id. Throws CampaignSendError. */
  send(mail: CampaignMail, sender: Settings['sender']): Promise<string>;
  /** The account's maximum send rate (mails per second), SES `GetSendQuota`. */
  maxSendRate(): Promise<number>;
  /** The account's whole quota and what it sent in the last 24 hours, SES `GetSendQuota`. */
  sendQuota(): Promise<SendQuota>;
}
