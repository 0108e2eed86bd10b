import { GetSendQuotaCommand, type SESClient, SendRawEmailCommand } from '@aws-sdk/client-ses';
import { DependencyError } from '../../domain/errors.ts';
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
} from './campaign-mailer-port.ts';

/** SES's answers that mean "over the sending rate" (`Throttling: Maximum sending rate exceeded`). */
const THROTTLED = /Throttl|MaxSendingRateExceeded|TooManyRequests/;

/** How a failed SES call counts for a campaign. */
export function classifySesFailure(error: unknown): CampaignSendFailure {
  if (!(error instanceof Error)) return 'unavailable';
  if (THROTTLED.test(error.name) || /Maximum sending rate exceeded/i.test(error.message))
    return 'throttled';
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status === undefined || status >= 500 || /ServiceUnavailable/.test(error.name))
    return 'unavailable';
  return 'rejected';
}

export type { CampaignConfigurationSets } from './campaign-configuration-set.ts';

/**
 * Campaign mail on Amazon SES: MIME from build-mime (the same headers as every mail of the
 * service, List-Unsubscribe with one-click included), sent raw with one of the stack's
 * configuration sets and the campaign's tags, so the feedback function hears of bounces and
 * complaints, and of deliveries only where one matters.
 */
export class SesCampaignMailer implements CampaignMailer {
  /**
   * @param client created once per function with no retries of its own: a throttled send is
   *   put back on the queue by the worker, paced, instead of retried at once by the SDK.
   */
  constructor(
    private readonly client: SESClient,
    private readonly configurationSets: CampaignConfigurationSets,
  ) {}

  async send(mail: CampaignMail, sender: Settings['sender']): Promise<string> {
    const raw = await buildMime({
      sender,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      unsubscribeUrl: mail.unsubscribeUrl,
    });
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
      const failure = classifySesFailure(error);
      // The error name only: SES messages can quote the recipient, and the message is logged.
      const reason = error instanceof Error ? error.name : typeof error;
      throw new CampaignSendError(failure, `SES did not take the campaign mail (${reason})`, {
        cause: error,
      });
    }
  }

  async maxSendRate(): Promise<number> {
    try {
      const output = await this.client.send(new GetSendQuotaCommand({}));
      return Number(output.MaxSendRate ?? 0);
    } catch (error) {
      throw new DependencyError('ses', { cause: error });
    }
  }
}
