import { type SESClient, SendRawEmailCommand } from '@aws-sdk/client-ses';
import type { AccountRefusal } from '../../domain/campaign/campaign.ts';
import type { Settings } from '../../domain/settings-schema.ts';
import { buildMime } from './build-mime.ts';
import {
  type CampaignConfigurationSets,
  configurationSetOf,
} from './campaign-configuration-set.ts';
import {
  type CampaignMail,
  type CampaignMailer,
  CampaignSendError,
  type CampaignSendFailure,
  type SendQuota,
} from './campaign-mailer-port.ts';
import { PreparedMime } from './prepared-mime.ts';
import { SesSendQuota } from './ses-send-quota.ts';

/** SES's answers that mean "over the sending rate" (`Throttling: Maximum sending rate exceeded`). */
const THROTTLED = /Throttl|MaxSendingRateExceeded|TooManyRequests/;

/** How a failed SES call counts for a campaign, and for an account refusal, which one. */
export interface SesFailure {
  readonly failure: CampaignSendFailure;
  readonly refusal?: AccountRefusal;
}

/**
 * Refusals about the account or the sender, by SES's error name: every mail of the campaign
 * would be refused alike ([campaign.account-refusal]).
 */
const ACCOUNT_ERRORS: Readonly<Record<string, AccountRefusal>> = {
  AccountSendingPausedException: 'account_paused',
  ConfigurationSetSendingPausedException: 'account_paused',
  ConfigurationSetDoesNotExist: 'configuration_set',
  ConfigurationSetDoesNotExistException: 'configuration_set',
  MailFromDomainNotVerified: 'sender_unverified',
  MailFromDomainNotVerifiedException: 'sender_unverified',
  AccessDenied: 'access_denied',
  AccessDeniedException: 'access_denied',
  InvalidClientTokenId: 'access_denied',
  UnrecognizedClientException: 'access_denied',
  SignatureDoesNotMatch: 'access_denied',
  ExpiredToken: 'access_denied',
  ExpiredTokenException: 'access_denied',
};

/**
 * How a failed SES call counts for a campaign ([campaign.quota], [campaign.account-refusal],
 * [campaign.unknown-outcome]). The daily quota and the rate share SES's error name
 * (`Throttling`); the message tells them apart. `MessageRejected` is about the recipient
 * unless its message names an unverified identity (the sender's, or in the sandbox any
 * recipient's: the account's state, not the person's) or a suspended account. A call that timed
 * out or lost its connection after it was sent has no known outcome.
 */
export function classifySesFailure(error: unknown, recipient = ''): SesFailure {
  if (!(error instanceof Error)) return { failure: 'unavailable' };
  const { name, message } = error;
  if (/daily message quota exceeded/i.test(message)) return { failure: 'quota' };
  if (THROTTLED.test(name) || /Maximum sending rate exceeded/i.test(message))
    return { failure: 'throttled' };
  const refusal = ACCOUNT_ERRORS[name];
  if (refusal) return { failure: 'account', refusal };
  if (name === 'MessageRejected') {
    if (/suspended|sending paused|sending is paused/i.test(message))
      return { failure: 'account', refusal: 'account_suspended' };
    if (/not verified/i.test(message))
      return {
        failure: 'account',
        refusal:
          recipient !== '' && message.toLowerCase().includes(recipient.toLowerCase())
            ? 'sandbox'
            : 'sender_unverified',
      };
    return { failure: 'rejected' };
  }
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status === undefined) {
    // Refused before a connection was made: SES never saw the mail.
    if (/did not establish a connection|ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(message))
      return { failure: 'unavailable' };
    // Sent, and then no answer: SES may have taken it.
    if (name === 'TimeoutError' || /ECONNRESET|socket hang up|EPIPE/.test(message))
      return { failure: 'unknown' };
    return { failure: 'unavailable' };
  }
  if (status >= 500 || /ServiceUnavailable/.test(name)) return { failure: 'unavailable' };
  return { failure: 'rejected' };
}

export type { CampaignConfigurationSets } from './campaign-configuration-set.ts';

/**
 * Campaign mail on Amazon SES: MIME from build-mime (the same headers as every mail of the
 * service, List-Unsubscribe with one-click included; from prepared-mime for a mail that comes
 * as a prepared campaign's pieces), sent raw with one of the stack's
 * configuration sets and the campaign's tags, so the feedback function hears of bounces and
 * complaints, and of deliveries only where one matters.
 */
export class SesCampaignMailer implements CampaignMailer {
  /** The fixed pieces of prepared campaigns, encoded once for all their mails. */
  readonly #mime = new PreparedMime();
  readonly #quota: SesSendQuota;

  /**
   * @param client created once per function with no retries of its own: a throttled send is
   *   put back on the queue by the worker, paced, instead of retried at once by the SDK.
   */
  constructor(
    private readonly client: SESClient,
    private readonly configurationSets: CampaignConfigurationSets,
  ) {
    this.#quota = new SesSendQuota(client);
  }

  async send(mail: CampaignMail, sender: Settings['sender']): Promise<string> {
    const headers = {
      sender,
      to: mail.to,
      subject: mail.subject,
      unsubscribeUrl: mail.unsubscribeUrl,
    };
    const raw = mail.pieces
      ? this.#mime.build({ ...headers, pieces: mail.pieces })
      : await buildMime({ ...headers, text: mail.text, html: mail.html });
    try {
      const output = await this.client.send(
        new SendRawEmailCommand({
          Source: sender.address,
          Destinations: [mail.to],
          RawMessage: { Data: raw },
          ConfigurationSetName: configurationSetOf(mail, this.configurationSets),
          Tags: Object.entries(mail.tags).map(([Name, Value]) => ({ Name, Value })),
        }),
      );
      return output.MessageId ?? '';
    } catch (error) {
      const { failure, refusal } = classifySesFailure(error, mail.to);
      // The error name only: SES messages can quote the recipient, and the message is logged.
      const reason = error instanceof Error ? error.name : typeof error;
      throw new CampaignSendError(failure, `SES did not take the campaign mail (${reason})`, {
        cause: error,
        ...(refusal ? { refusal } : {}),
      });
    }
  }

  maxSendRate(): Promise<number> {
    return this.#quota.maxSendRate();
  }

  sendQuota(): Promise<SendQuota> {
    return this.#quota.sendQuota();
  }
}
