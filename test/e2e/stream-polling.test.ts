/**
 * How the local cloud reads the table's stream for its two mappings (subscribe requests and
 * the outbox): about once a second while nothing happens, at once after a write the endpoint
 * forwarded, four times a second while records keep coming, and the outbox still worked off as soon as a test waits for it. Every idle read
 * is a signed, IAM-checked call and a DynamoDB Local request, paid by every test stack for as
 * long as it runs; the count is the oracle, so a slower machine only makes it smaller.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from './support/local-service.ts';

// One stack at a time: the SES stand-in is one per process.
let service: LocalService;

/** DynamoDB calls (streams included) the endpoint forwarded so far. */
const dynamoCalls = (): number => service.stack.cloud.endpoint.counts.dynamodb?.forwarded ?? 0;

describe('the stream mappings as pollers', () => {
  beforeAll(async () => {
    service = await startLocalService();
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('an idle stack reads its stream about once a second per mapping, not more', async () => {
    await service.stack.settled();
    // Let the work of the start (the seed, the settings) and its writes' wake-ups pass.
    await sleep(2_000);
    const before = dynamoCalls();
    await sleep(2_000);
    const calls = dynamoCalls() - before;
    // Per mapping in two seconds: at most 3 GetRecords (a second apart) and one DescribeStream
    // (every 5 s). Lambda's pace (four reads a second) would be 16 or more; reading every
    // 50 ms, as this poller once did after records came, about 160.
    const mappings = 2;
    expect(calls).toBeLessThanOrEqual(mappings * (3 + 1));
    expect(calls).toBeGreaterThan(0);
  });

  it('while records keep coming, each mapping reads about four times a second, not once per write', async () => {
    await service.stack.settled();
    await sleep(1_500);
    const { endpoint } = service.stack.cloud;
    // Writes through the endpoint, as a campaign's workers make them: records the mappings'
    // filters do not pass, so no delivery slows the readers down between two reads.
    const writer = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: endpoint.url,
        region: 'us-east-1',
        credentials: endpoint.register({
          name: 'busy-writer',
          roleArn: 'arn:aws:iam::123456789012:role/BusyWriter',
          policy: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: ['dynamodb:PutItem'], Resource: ['*'] }],
          },
        }),
      }),
    );
    const before = dynamoCalls();
    const started = performance.now();
    let writes = 0;
    // Many writers at once: enough writes even when a loaded machine answers each slowly (in a
    // whole suite's run eight made 40 writes in 3 s where the guard below asked for 53).
    const writing = async (): Promise<void> => {
      while (performance.now() - started < 2_000) {
        const item = { pk: `BUSY#${writes++}`, sk: 'busy' };
        await writer.send(new PutCommand({ TableName: service.stack.tableName, Item: item }));
      }
    };
    await Promise.all(Array.from({ length: 32 }, writing));
    const elapsed = performance.now() - started;
    writer.destroy();
    const byReaders = dynamoCalls() - before - writes;
    // Per mapping: a GetRecords every 250 ms, one more in flight, and a DescribeStream.
    const mappings = 2;
    const bound = mappings * (Math.ceil(elapsed / 250) + 2);
    expect(byReaders).toBeLessThanOrEqual(bound);
    // Far more writes than that: reading once per write would have exceeded it.
    expect(writes).toBeGreaterThan(2 * bound);
    await service.stack.settled();
  });

  it('a record written while the readers idle is delivered before settled() resolves', async () => {
    await service.stack.settled();
    await sleep(1_000);
    const email = `idle-reader-${Date.now()}@example.com`;
    expect((await service.post('/subscribe', { email })).status).toBe(200);
    await service.stack.settled();
    // The mailbox as it is now: settled() alone must have waited for the mailer.
    const mails = await service.stack.mailboxNow();
    expect(
      mails.filter((mail) => mail.destination.to.some((to) => to.includes(email))),
    ).toHaveLength(1);
  });
});

describe('a write the endpoint forwarded wakes the readers', () => {
  let sleepy: LocalService;

  beforeAll(async () => {
    // Readers that, left alone, poll an empty stream again only after ten minutes.
    sleepy = await startLocalService({ streamIdlePollMs: 600_000 });
  });

  afterAll(async () => {
    await sleepy?.stop();
  });

  it('a subscribe is worked off without settled(), long before the idle poll', async () => {
    // settled() makes the readers poll until the start's records are worked off; after it,
    // the next poll nobody asks for is ten minutes away.
    await sleepy.stack.settled();
    const email = `woken-reader-${Date.now()}@example.com`;
    expect((await sleepy.post('/subscribe', { email }, { settle: false })).status).toBe(200);
    // Only the mailbox, never settled(): the write itself must have started the poll.
    for (;;) {
      const mails = await sleepy.stack.mailboxNow();
      if (mails.some((mail) => mail.destination.to.some((to) => to.includes(email)))) break;
      await sleep(100);
    }
  });
});
