import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Command } from 'commander';
import type { Services } from '../connection/services.ts';
import type { CliContext } from '../context.ts';
import { formatTable } from '../format-table.ts';
import { writeLine } from '../io.ts';

/** Most failed mails a command looks at; a larger backlog is worked off in rounds. */
const LIMIT = 100;

/** Messages in the dead-letter queue, or undefined when none is configured. */
async function deadLetterCount(services: Services): Promise<number | undefined> {
  const queue = services.connection.mailDeadLetters;
  if (!queue) return undefined;
  const { Attributes } = await services.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queue,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

/** Receives and deletes every message of the queue: the batches they describe are retried. */
async function clearQueue(sqs: SQSClient, queue: string): Promise<number> {
  let cleared = 0;
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queue,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 30,
      }),
    );
    if (Messages.length === 0) return cleared;
    for (const message of Messages) {
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: queue, ReceiptHandle: message.ReceiptHandle }),
      );
      cleared += 1;
    }
  }
}

/**
 * `mail failed`, `mail retry`: the mails the mailer could not send. Each failed attempt is
 * recorded on the mail's outbox item (listed here); a mail that exhausted the stream's retries
 * also left a batch description in the dead-letter queue, which raises the alarm.
 */
export function registerMailCommands(program: Command, context: CliContext): void {
  const mail = program
    .command('mail')
    .description('Show and resend mails the mailer could not send (the outbox)');

  mail
    .command('failed')
    .description('List mails whose last attempt failed, and the dead-letter queue')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const services = await context.services();
      const failed = await services.store().failedMails(LIMIT);
      const queued = await deadLetterCount(services);
      if (options.json) {
        writeLine(
          context.io.stdout,
          JSON.stringify({ mails: failed, dead_letter_batches: queued ?? null }, null, 2),
        );
        return;
      }
      const rows = failed.map((entry) => [
        entry.mail_id,
        entry.kind,
        entry.email,
        String(entry.attempts),
        entry.created,
        (entry.last_error ?? '').slice(0, 80),
      ]);
      writeLine(
        context.io.stdout,
        formatTable(['MAIL', 'KIND', 'TO', 'ATTEMPTS', 'QUEUED', 'LAST ERROR'], rows),
      );
      writeLine(
        context.io.stderr,
        queued === undefined
          ? 'Dead-letter queue: not configured (--dead-letter-queue or NEWSLETTER_MAIL_DEAD_LETTERS).'
          : `Dead-letter queue: ${queued} batch${queued === 1 ? '' : 'es'}.`,
      );
    });

  mail
    .command('retry')
    .description(
      'Queue failed mails for another round of attempts, and clear the dead-letter queue',
    )
    .option('--id <mailId...>', 'only these mails (default: every failed one)')
    .action(async (options: { id?: string[] }) => {
      const services = await context.services();
      const store = services.store();
      const ids = options.id ?? (await store.failedMails(LIMIT)).map((entry) => entry.mail_id);
      let requeued = 0;
      // Each requeue is a change on the table's stream: the mailer takes the mail up again.
      for (const id of ids) if (await store.requeueMail(id)) requeued += 1;
      const queue = services.connection.mailDeadLetters;
      const cleared = queue ? await clearQueue(services.sqs, queue) : 0;
      writeLine(
        context.io.stderr,
        `${requeued} mail${requeued === 1 ? '' : 's'} queued again; ${cleared} dead-letter batch${cleared === 1 ? '' : 'es'} cleared.`,
      );
    });
}
