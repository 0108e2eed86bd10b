import { GetSendQuotaCommand, type SESClient } from '@aws-sdk/client-ses';
import { DependencyError } from '../../domain/errors.ts';
import type { CampaignMailer, SendQuota } from './campaign-mailer-port.ts';

/**
 * SES's sending quota (`GetSendQuota`) and nothing else: for the callers that ask whether a
 * send fits (the function class, the planner's rate, the sweeper's quota pauses) and send no
 * mail, so that they carry no MIME composer.
 */
export class SesSendQuota implements Pick<CampaignMailer, 'sendQuota' | 'maxSendRate'> {
  constructor(private readonly client: SESClient) {}

  async maxSendRate(): Promise<number> {
    return (await this.sendQuota()).maxSendRate;
  }

  async sendQuota(): Promise<SendQuota> {
    try {
      const output = await this.client.send(new GetSendQuotaCommand({}));
      return {
        maxSendRate: Number(output.MaxSendRate ?? 0),
        max24HourSend: Number(output.Max24HourSend ?? 0),
        sentLast24Hours: Number(output.SentLast24Hours ?? 0),
      };
    } catch (error) {
      throw new DependencyError('ses', { cause: error });
    }
  }
}
