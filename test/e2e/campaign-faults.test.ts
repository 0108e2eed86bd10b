/**
 * A send under faults, against the synthesized engine under the local cloud: SES throttling,
 * SES away for a while, DynamoDB throttling, and SQS delivering a chunk twice at once. What
 * must hold each time: nobody is skipped, and nobody gets the issue twice unless their mail
 * was in flight when SES went away. A worker killed mid-batch is in the integration suite
 * (test/integration/campaign-engine.test.ts, on a virtual clock: a killed worker's batch comes
 * back after the sends queue's visibility timeout, two minutes as deployed) and in
 * `npm run bench` (ten kills during a 10,000-recipient send).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chunkMessages } from '../../shared/domain/campaign/work-messages.ts';
import {
  addressesOf,
  type CampaignOperator,
  campaignOperator,
  until,
} from './support/campaign-operator.ts';
import { type LocalService, startLocalService } from './support/local-service.ts';

// A send paces at a dozen mails a second (a few in the pause tests) and backs off for seconds
// after a throttle: each test waits for a whole send, longer on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let service: LocalService;
let operator: CampaignOperator;
const READERS = Array.from({ length: 30 }, (_, index) => `fault-reader${index}@example.net`);

beforeAll(async () => {
  service = await startLocalService();
  operator = await campaignOperator(service);
  for (const email of READERS) await operator.add(email, [4]);
});

afterAll(async () => {
  await operator?.close();
  await service?.stop();
});

/** Sends an issue to list 4 and waits until its first mails are out; its id. */
async function startSend(subject: string, firstMails = 3): Promise<number> {
  const id = await operator.createIssue(subject, [4]);
  await operator.cliOk('newsletters', 'send', String(id));
  await until(async () => (await operator.mailsOf(subject)).length >= firstMails, 'first mails');
  return id;
}

/** Everyone once: the report and the mailbox agree with the recipients. */
async function expectEveryoneOnce(id: number, subject: string): Promise<void> {
  await service.stack.settled();
  expect(addressesOf(await operator.mailsOf(subject))).toEqual([...READERS].sort());
  const counts = await operator.report(id);
  expect(counts).toMatchObject({ recipients: READERS.length, sent: READERS.length, failed: 0 });
  expect(await operator.campaigns.getCampaign(id)).toMatchObject({ status: 'sent' });
}

describe('[campaign.throttle] SES throttles in the middle of a send', () => {
  it('the workers put the unsent back with a delay; everyone gets the issue once', async () => {
    const id = await startSend('Throttled');
    service.ses.throttleStorm(3_000);
    await expectEveryoneOnce(id, 'Throttled');
    const throttledLines = service.logLines.filter((line) => line.includes('"CampaignThrottles"'));
    expect(throttledLines.length).toBeGreaterThan(0);
  });
});

describe('[campaign.auto-pause] SES away for a while', () => {
  it('nothing is lost: the failures pause the send, a resume finishes it, at most the mails in flight go twice', async () => {
    const id = await startSend('SES away');
    await service.stopSes();
    await sleep(2_000);
    await service.restartSes();
    await service.stack.settled();
    const campaign = await operator.campaigns.getCampaign(id);
    if (campaign?.status === 'paused') {
      expect(campaign.pause_reason).toBeDefined();
      await operator.cliOk('newsletters', 'resume', String(id));
      await service.stack.settled();
    }
    const reached = addressesOf(await operator.mailsOf('SES away'));
    expect([...new Set(reached)]).toEqual([...READERS].sort());
    // A mail SES took just as the connection dropped may go again: one per worker at most.
    expect(reached.length - READERS.length).toBeLessThanOrEqual(2);
    expect(await operator.report(id)).toMatchObject({ sent: READERS.length, failed: 0 });
  });
});

describe('[campaign.claim] DynamoDB throttling during a send', () => {
  it('the SDK’s retries absorb brief throttling: everyone once', async () => {
    const id = await startSend('DynamoDB throttled', 1);
    const throttledBefore = service.stack.cloud.endpoint.counts.dynamodb?.throttled ?? 0;
    // Bursts of two throttled calls, whichever function makes them, for two seconds.
    for (let burst = 0; burst < 10; burst++) {
      service.stack.cloud.endpoint.setFault('dynamodb', { kind: 'throttle', count: 2 });
      await sleep(200);
    }
    service.stack.cloud.endpoint.setFault('dynamodb', undefined);
    await expectEveryoneOnce(id, 'DynamoDB throttled');
    // The bursts met calls of the send: some were refused and retried.
    const throttled =
      (service.stack.cloud.endpoint.counts.dynamodb?.throttled ?? 0) - throttledBefore;
    expect(throttled).toBeGreaterThan(0);
  });
});

describe('[campaign.claim] SQS delivers a chunk twice', () => {
  it('two workers with the same recipients at once: each recipient is claimed once and mailed once', async () => {
    const id = await operator.createIssue('Delivered twice', [4]);
    await operator.cliOk('newsletters', 'send', String(id));
    // The same chunk again, as SQS's at-least-once delivery may hand it to a second worker.
    const recipients = [];
    for (const email of READERS) {
      const { Item } = await operator.db.send(
        new GetCommand({
          TableName: service.stack.tableName,
          Key: { pk: `SUBSCRIBER#${email}`, sk: 'subscriber' },
        }),
      );
      recipients.push({ id: Number(Item?.id), email });
    }
    const [sends] = [...service.stack.cloud.queues.values()].filter((queue) =>
      /CampaignsSends[0-9A-F]{8}$/.test(queue.name),
    );
    if (!sends) throw new Error('no sends queue');
    const sqs = new SQSClient({
      endpoint: service.stack.sqs.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
    });
    for (const chunk of chunkMessages(id, 1, recipients))
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: `${service.stack.sqs.endpoint}/${sends.url.split('/').slice(-2).join('/')}`,
          MessageBody: JSON.stringify(chunk),
        }),
      );
    sqs.destroy();
    await expectEveryoneOnce(id, 'Delivered twice');
  });
});
