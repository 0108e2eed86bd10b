/**
 * `newsletter mail failed` and `mail retry` against a real table, the parameter-store stand-in
 * and the SQS stand-in holding the mailer's dead-letter queue, as under `npm start`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SqsLocal, startSqsLocal } from '../../infra/local/stand-ins/sqs-local.ts';
import { parseSettings } from '../../shared/domain/parse-settings.ts';
import { createNewsletter } from '../../shared/newsletter.ts';
import { deliverMail, MailNotSent } from '../../shared/operations/deliver-mail.ts';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { RecordingLogger, RecordingMailer, RecordingMetrics } from '../support/fixtures.ts';
import { type CliWorld, cliWorld } from './cli-harness.ts';

let world: CliWorld;
let sqs: SqsLocal;
let queue: string;

beforeAll(async () => {
  world = await cliWorld();
  sqs = await startSqsLocal();
  queue = sqs.createQueue('Newsletter-MailerDeadLetters');
  const file = join(world.dir, 'local-endpoints.json');
  const endpoints = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
  await writeFile(file, JSON.stringify({ ...endpoints, mail_dead_letters: queue }));
});

afterAll(async () => {
  await world?.close();
  await sqs?.stop();
});

describe('[subscribe.mail-failure] mail failed / mail retry', () => {
  it('lists a mail the mailer could not send and the dead-letter batch, and sends it again', async () => {
    const mailer = new RecordingMailer();
    const deps = {
      store: world.store,
      settings: async () =>
        parseSettings(world.parameters.get(ENV_DEFAULTS.settingsParameter)?.value ?? ''),
      now: () => new Date(),
      log: new RecordingLogger(),
      metrics: new RecordingMetrics(),
      mailer,
    };
    await createNewsletter(deps).subscribe(
      { email: 'stuck@example.com' },
      { trusted: true, apiRoot: 'https://news.example.com/api/newsletter/v1' },
    );
    const [mailId] = (await world.store.failedMails(10)).map((mail) => mail.mail_id);
    expect(mailId).toBeUndefined();
    // The mailer's attempt fails, and the stream gives up on the batch.
    const queued = await world.client.send(new ScanCommand({ TableName: world.tableName }));
    const id = String(queued.Items?.find((item) => String(item.pk).startsWith('OUTBOX#'))?.mail_id);
    mailer.failing = true;
    await expect(deliverMail(deps, id)).rejects.toBeInstanceOf(MailNotSent);
    const client = new SQSClient({
      endpoint: sqs.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await client.send(
      new SendMessageCommand({
        QueueUrl: queue,
        MessageBody: JSON.stringify({ DDBStreamBatchInfo: { batchSize: 1 } }),
      }),
    );
    client.destroy();

    const failed = await world.cli(['mail', 'failed']);
    expect(failed.code).toBe(0);
    const lines = failed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^MAIL\s+KIND\s+TO\s+ATTEMPTS\s+QUEUED\s+LAST ERROR$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${id}\\s+activation\\s+stuck@example.com\\s+1\\s+\\S+\\s+.*mail service down`),
    );
    expect(failed.stderr).toContain('Dead-letter queue: 1 batch.');
    const json = JSON.parse((await world.cli(['mail', 'failed', '--json'])).stdout) as {
      mails: { mail_id: string; state: string }[];
      dead_letter_batches: number;
    };
    expect(json).toMatchObject({
      mails: [{ mail_id: id, state: 'queued' }],
      dead_letter_batches: 1,
    });

    const retried = await world.cli(['mail', 'retry']);
    expect(retried.code).toBe(0);
    expect(retried.stderr).toContain('1 mail queued again; 1 dead-letter batch cleared.');
    expect(sqs.messages('Newsletter-MailerDeadLetters')).toEqual([]);
    expect((await world.store.getOutboxMail(id))?.state).toBe('requeued');

    // The requeued mail is on the stream again; the mailer, working now, sends it.
    mailer.failing = false;
    expect(await deliverMail(deps, id)).toBe('sent');
    expect(mailer.of('activation', 'stuck@example.com')).toHaveLength(1);
    const after = await world.cli(['mail', 'failed']);
    expect(after.stdout.trim().split('\n')).toHaveLength(1);
    expect(after.stderr).toContain('Dead-letter queue: 0 batches.');
  });
});
