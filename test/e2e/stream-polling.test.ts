/**
 * How the local cloud reads the table's stream for its two mappings (subscribe requests and
 * the outbox): as Lambda's pollers do, a few reads a second while nothing happens, and the
 * outbox still worked off as soon as a test waits for it. Every idle read is a signed,
 * IAM-checked call and a DynamoDB Local request, paid by every test stack for as long as it
 * runs; the count is the oracle, so a slower machine only makes it smaller.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from './support/local-service.ts';

let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
});

afterAll(async () => {
  await service?.stop();
});

/** DynamoDB calls (streams included) the endpoint forwarded so far. */
const dynamoCalls = (): number => service.stack.cloud.endpoint.counts.dynamodb?.forwarded ?? 0;

describe('the stream mappings as pollers', () => {
  it('an idle stack reads its stream about four times a second per mapping, not more', async () => {
    await service.stack.settled();
    // Let the readers back off from the work of the start (the seed, the settings).
    await sleep(1_000);
    const before = dynamoCalls();
    await sleep(2_000);
    const calls = dynamoCalls() - before;
    // Per mapping and second: at most 4 GetRecords (250 ms apart) and one DescribeStream.
    // Reading at the busy pace (every 50 ms, and describing each time) would be about 160.
    const mappings = 2;
    expect(calls).toBeLessThanOrEqual(mappings * 2 * (4 + 1) + mappings);
    expect(calls).toBeGreaterThan(0);
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
