import type { CampaignMailer } from '../adapters/mail/campaign-mailer-port.ts';
import type { SesSendStatistics } from '../adapters/mail/ses-send-statistics.ts';
import {
  BOUNCE_THRESHOLDS,
  COMPLAINT_THRESHOLDS,
  judgeRate,
  type ReputationRate,
} from '../domain/ses-reputation.ts';

/** Where the account's figures come from: SES's quota and its sending statistics. */
export interface AccountSources {
  readonly quota: Pick<CampaignMailer, 'sendQuota'>;
  readonly statistics: Pick<SesSendStatistics, 'sendStatistics'>;
  readonly now: () => Date;
}

/** The SES account as the console shows it (`GET /account`). */
export interface AccountHealth {
  readonly max_24_hour_send: number;
  readonly sent_last_24_hours: number;
  /** Mails a second. */
  readonly max_send_rate: number;
  /** What the rates are computed over: SES's sending statistics of the last two weeks. */
  readonly statistics: {
    readonly since: string;
    readonly delivery_attempts: number;
    readonly bounces: number;
    readonly complaints: number;
    readonly rejects: number;
  };
  readonly bounce_rate: ReputationRate;
  readonly complaint_rate: ReputationRate;
}

const TWO_WEEKS_MS = 14 * 86_400_000;

/**
 * SES's quota and rate, and the bounce and complaint rates against the levels SES reviews and
 * pauses an account at ([v2.account]): both SES calls at once. SES unreachable is a
 * DependencyError (a 503), as for every other call to it.
 */
export async function accountHealth(sources: AccountSources): Promise<AccountHealth> {
  const [quota, sent] = await Promise.all([
    sources.quota.sendQuota(),
    sources.statistics.sendStatistics(),
  ]);
  return {
    max_24_hour_send: quota.max24HourSend,
    sent_last_24_hours: quota.sentLast24Hours,
    max_send_rate: quota.maxSendRate,
    statistics: {
      since: new Date(sources.now().getTime() - TWO_WEEKS_MS).toISOString(),
      delivery_attempts: sent.deliveryAttempts,
      bounces: sent.bounces,
      complaints: sent.complaints,
      rejects: sent.rejects,
    },
    bounce_rate: judgeRate(sent.bounces, sent.deliveryAttempts, BOUNCE_THRESHOLDS),
    complaint_rate: judgeRate(sent.complaints, sent.deliveryAttempts, COMPLAINT_THRESHOLDS),
  };
}
