import { GetSendStatisticsCommand, type SESClient } from '@aws-sdk/client-ses';
import { DependencyError } from '../../domain/errors.ts';

/** What the account sent in the last two weeks, summed over SES's 15-minute data points. */
export interface SendStatistics {
  readonly deliveryAttempts: number;
  readonly bounces: number;
  readonly complaints: number;
  readonly rejects: number;
}

/**
 * SES's sending statistics (`GetSendStatistics`): the account's delivery attempts, bounces,
 * complaints and rejects of the last two weeks, in 15-minute data points, summed here. They
 * count every mail the account sent, this service's and any other's.
 */
export class SesSendStatistics {
  constructor(private readonly client: SESClient) {}

  async sendStatistics(): Promise<SendStatistics> {
    try {
      const output = await this.client.send(new GetSendStatisticsCommand({}));
      const sum = { deliveryAttempts: 0, bounces: 0, complaints: 0, rejects: 0 };
      for (const point of output.SendDataPoints ?? []) {
        sum.deliveryAttempts += Number(point.DeliveryAttempts ?? 0);
        sum.bounces += Number(point.Bounces ?? 0);
        sum.complaints += Number(point.Complaints ?? 0);
        sum.rejects += Number(point.Rejects ?? 0);
      }
      return sum;
    } catch (error) {
      throw new DependencyError('ses', { cause: error });
    }
  }
}
