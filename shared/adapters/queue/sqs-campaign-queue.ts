import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ChunkMessage, PlannerMessage } from '../../domain/campaign/work-messages.ts';
import { DependencyError } from '../../domain/errors.ts';
import type { CampaignQueue } from './campaign-queue-port.ts';

/** Entries per SendMessageBatch, SQS's limit. */
const BATCH_ENTRIES = 10;
/** SQS's longest message delay. */
const MAX_DELAY_SECONDS = 900;

/** Where the two queues are (the stack's outputs; environment variables of the functions). */
export interface CampaignQueueUrls {
  /** The planner's FIFO queue. */
  readonly plans: string;
  /** The workers' queue; undefined where only planner work is queued (the CLI, the package). */
  readonly sends?: string;
}

/** The campaign queues on Amazon SQS. */
export class SqsCampaignQueue implements CampaignQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly urls: CampaignQueueUrls,
  ) {}

  async plan(message: PlannerMessage): Promise<void> {
    const what =
      message.kind === 'plan'
        ? `plan-${message.run}-${message.walk}-${message.page}`
        : `walk-${message.run}-${message.walk}-${message.after}`;
    await this.#call(() =>
      this.client.send(
        new SendMessageCommand({
          QueueUrl: this.urls.plans,
          MessageBody: JSON.stringify(message),
          // One group per campaign: its pages and walks are handled one at a time, in order.
          MessageGroupId: `newsletter-${message.newsletter_id}`,
          // The same page queued twice within five minutes (a redelivered page re-queueing the
          // next one, a repair racing the chain) is queued once.
          MessageDeduplicationId: `${message.newsletter_id}-${what}`,
        }),
      ),
    );
  }

  async send(chunks: readonly ChunkMessage[], delaySeconds = 0): Promise<void> {
    const queueUrl = this.urls.sends;
    if (!queueUrl) throw new Error('the workers queue is not configured here');
    const delay = Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(delaySeconds)));
    for (let start = 0; start < chunks.length; start += BATCH_ENTRIES) {
      let entries = chunks.slice(start, start + BATCH_ENTRIES).map((chunk, index) => ({
        Id: String(index),
        MessageBody: JSON.stringify(chunk),
        ...(delay > 0 ? { DelaySeconds: delay } : {}),
      }));
      for (let round = 0; entries.length > 0; round += 1) {
        if (round >= 3)
          throw new DependencyError('sqs', {
            cause: new Error(`${entries.length} messages not accepted`),
          });
        const output = await this.#call(() =>
          this.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries })),
        );
        const failed = new Set((output.Failed ?? []).map((failure) => failure.Id));
        entries = entries.filter((entry) => failed.has(entry.Id));
      }
    }
  }

  /** Runs an SQS call; any failure of the service is an outage of the queue. */
  async #call<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new DependencyError('sqs', { cause: error });
    }
  }
}
