import { SESClient } from '@aws-sdk/client-ses';
import { SesCampaignMailer } from '../../shared/adapters/mail/ses-campaign-mailer.ts';
import type { StoredContent } from '../../shared/adapters/store/campaign-store-port.ts';
import { SenderMessageSchema } from '../../shared/domain/campaign/work-messages.ts';
import { SYSTEM_CLOCK } from '../../shared/operations/campaign/campaign-dependencies.ts';
import {
  SENDS_IN_FLIGHT,
  type SenderDependencies,
  sendChunk,
} from '../../shared/operations/campaign/send-recipients.ts';
import { sendTestMail } from '../../shared/operations/campaign/test-send.ts';
import { campaignQueue, campaignStore, sendBudget } from '../../shared/runtime/campaign-clients.ts';
import { CLIENT_OPTIONS } from '../../shared/runtime/client-options.ts';
import {
  ENV,
  readCampaignEnvironment,
  readConfigurationSet,
  readEnvironment,
} from '../../shared/runtime/environment.ts';
import { tableFunction } from '../http/table-function.ts';
import { queueHandler } from './queue-handler.ts';

const { runtime, deps } = tableFunction({ background: true });
const environment = readEnvironment();
const campaign = readCampaignEnvironment();
const sender: SenderDependencies = {
  ...deps,
  campaigns: campaignStore(environment),
  budget: sendBudget(environment),
  queue: campaignQueue(campaign),
  // One attempt per send: a throttled mail goes back on the queue, paced, rather than being
  // retried at once by the SDK past the rate it was refused for.
  mailer: new SesCampaignMailer(new SESClient({ ...CLIENT_OPTIONS, maxAttempts: 1 }), {
    withDeliveries: readConfigurationSet(),
    withoutDeliveries: readConfigurationSet(process.env, ENV.campaignConfigurationSet),
    trackedWithoutDeliveries: readConfigurationSet(process.env, ENV.trackedConfigurationSet),
    trackedWithDeliveries: readConfigurationSet(process.env, ENV.trackedDeliveriesConfigurationSet),
  }),
  clock: SYSTEM_CLOCK,
  contents: new Map<number, StoredContent>(),
  slots: new Map<string, number[]>(),
};

/** The workers' queue: one chunk of recipients per invocation, paced ([campaign.claim]). */
export const handler = queueHandler(
  'campaign-sender',
  runtime,
  SenderMessageSchema,
  async (message, record, context) => {
    if ('kind' in message) {
      return {
        newsletter_id: message.newsletter_id,
        test: true,
        ...(await sendTestMail(sender, message)),
      };
    }
    const outcome = await sendChunk(sender, message, {
      workers: campaign.workers,
      owner: `${context.awsRequestId}/${record.messageId}`,
      deadline: Date.now() + context.getRemainingTimeInMillis(),
      inFlight: SENDS_IN_FLIGHT,
    });
    return { newsletter_id: message.newsletter_id, run: message.run, ...outcome };
  },
);
