import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DependencyError } from '../../domain/errors.ts';
import type { NewsletterEvent } from '../../domain/events/event-catalogue.ts';
import type { EventOutbox } from './event-ports.ts';

/** SQS takes at most 10 messages a batch. */
const BATCH = 10;
/** Rounds of sending again what SQS did not take before giving up. */
const ROUNDS = 4;

/** The events queue: one message per event, its body the event as published. */
export class SqsEventOutbox implements EventOutbox {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async add(events: readonly NewsletterEvent[]): Promise<void> {
    const batches: NewsletterEvent[][] = [];
    for (let start = 0; start < events.length; start += BATCH)
      batches.push(events.slice(start, start + BATCH));
    await Promise.all(batches.map((batch) => this.#send(batch)));
  }

  async #send(batch: readonly NewsletterEvent[]): Promise<void> {
    let pending = batch;
    for (let round = 0; pending.length > 0; round += 1) {
      if (round >= ROUNDS)
        throw new DependencyError('sqs', {
          cause: new Error(`${pending.length} events not queued`),
        });
      let failed: ReadonlySet<string>;
      try {
        const output = await this.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            // Entry ids need only be unique within the batch: the position is.
            Entries: pending.map((event, index) => ({
              Id: String(index),
              MessageBody: JSON.stringify(event),
            })),
          }),
        );
        failed = new Set((output.Failed ?? []).map((entry) => entry.Id ?? ''));
      } catch (error) {
        throw new DependencyError('sqs', { cause: error });
      }
      pending = pending.filter((_event, index) => failed.has(String(index)));
    }
  }
}
