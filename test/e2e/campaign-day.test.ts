/**
 * The operator's day under the local stack, as README's "Send a newsletter" tells it: write an
 * issue, send it as a test, send it and watch it, read its report and its CSV, send it to the
 * people who joined since, and copy it. Each command is the admin CLI against the synthesized
 * engine; the oracles are the mails the local SES stored and the recipient records.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rawHeader } from '../../infra/local/stand-ins/ses-local.ts';
import {
  addressesOf,
  type CampaignOperator,
  campaignOperator,
  until,
} from './support/campaign-operator.ts';
import { type LocalService, startLocalService } from './support/local-service.ts';

// Each step waits for a whole (small) send; longer on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let service: LocalService;
let operator: CampaignOperator;

beforeAll(async () => {
  service = await startLocalService();
  operator = await campaignOperator(service);
});

afterAll(async () => {
  await operator?.close();
  await service?.stack.settled();
  await service?.stop();
});

const SUBJECT = 'The day';
const READERS = Array.from({ length: 8 }, (_, index) => `day${index}@example.net`);
const LATECOMERS = ['late0@example.net', 'late1@example.net'];
const OUTSIDER = 'editor@elsewhere.example';

describe('an operator’s day: test, send and watch, report, send to the new, copy', () => {
  let id = 0;

  beforeAll(async () => {
    for (const email of READERS) await operator.add(email, [4]);
    // Not confirmed: neither the send nor the report counts them.
    await operator.add('pending@example.net', [4], 'S');
    id = await operator.createIssue(SUBJECT, [4]);
  });

  it('[campaign.test-send] a test mail: marked, a subscriber’s own values or plainly fake ones, nothing recorded', async () => {
    const out = await operator.cliOk(
      'newsletters',
      'test',
      String(id),
      '--to',
      READERS[0] ?? '',
      '--to',
      OUTSIDER,
    );
    expect(out).toContain(String(id));
    await until(
      async () => (await operator.mailsOf(`[TEST] ${SUBJECT}`)).length === 2,
      'the two test mails',
    );
    const tests = await operator.mailsOf(`[TEST] ${SUBJECT}`);
    const to = (address: string) =>
      tests.find((mail) => (mail.destination.to[0] ?? '').includes(address));
    expect(to(READERS[0] ?? '')?.body.html).toContain('Hello day0');
    expect(to(OUTSIDER)?.body.html).toContain('Hello Sample-Name');
    // Same headers as the real mail: one-click unsubscribe included.
    const outsider = to(OUTSIDER);
    if (!outsider) throw new Error('no test mail to the outsider');
    expect(rawHeader(outsider, 'List-Unsubscribe-Post')).toEqual(['List-Unsubscribe=One-Click']);
    expect(await operator.report(id)).toMatchObject({ recipients: 0, sent: 0 });
    expect(await operator.campaigns.getCampaign(id)).toMatchObject({
      status: 'draft',
      total: 0,
      sent: 0,
    });
  });

  it('[campaign.watch] send, and watch it to the end: the bar’s counts, then the final state', async () => {
    await operator.cliOk('newsletters', 'send', String(id));
    const watched = await operator.cli('newsletters', 'watch', String(id));
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(new RegExp(`^Newsletter ${id} is sent`, 'm'));
    expect(watched.stderr).toMatch(/settled \(sent \d+, skipped \d+, failed \d+\)/);
    expect(addressesOf(await operator.mailsOf(SUBJECT))).toEqual([...READERS].sort());
  });

  it('[campaign.report] the report counts the records, and the CSV has one row per recipient with its SES message id', async () => {
    await service.stack.settled();
    expect(await operator.report(id)).toMatchObject({
      recipients: READERS.length,
      sent: READERS.length,
      skipped: 0,
      failed: 0,
      unsent: 0,
    });
    const csv = await operator.cliOk('newsletters', 'report', String(id), '--csv', '-');
    const rows = csv
      .split('\n')
      .filter((line) => /@example\.net,/.test(line))
      .map((line) => line.split(','));
    const messageIds = new Map(
      (await operator.mailsOf(SUBJECT)).map((mail) => [
        (mail.destination.to[0] ?? '').replace(/^.*<|>$/g, ''),
        mail.messageId,
      ]),
    );
    expect(rows.map((row) => row[0]).sort()).toEqual([...READERS].sort());
    for (const [email, , outcome, at, messageId] of rows) {
      expect(outcome).toBe('sent');
      expect(Number.isNaN(Date.parse(at ?? ''))).toBe(false);
      expect(messageId).toBe(messageIds.get(email ?? ''));
    }
  });

  it('[campaign.plan] send --new-only mails only who joined since, once each', async () => {
    for (const email of LATECOMERS) await operator.add(email, [4]);
    await operator.cliOk('newsletters', 'send', String(id), '--new-only');
    await until(
      async () => (await operator.campaigns.getCampaign(id))?.status === 'sent',
      'the second run to end',
    );
    await service.stack.settled();
    expect(addressesOf(await operator.mailsOf(SUBJECT))).toEqual(
      [...READERS, ...LATECOMERS].sort(),
    );
    expect(await operator.report(id)).toMatchObject({
      recipients: READERS.length + LATECOMERS.length,
      sent: READERS.length + LATECOMERS.length,
    });
  });

  it('[campaign.copy] copy makes a new draft of the same content, unsent', async () => {
    const out = await operator.cliOk('newsletters', 'copy', String(id));
    const copyId = Number(/newsletter (\d+)/.exec(out)?.[1]);
    expect(copyId).toBeGreaterThan(id);
    const [original, copy] = await Promise.all([
      operator.campaigns.getCampaign(id),
      operator.campaigns.getCampaign(copyId),
    ]);
    expect(copy).toMatchObject({
      status: 'draft',
      subject: original?.subject,
      lists: original?.lists,
      total: 0,
      sent: 0,
    });
    const [content, copied] = await Promise.all([
      operator.campaigns.getContent(id),
      operator.campaigns.getContent(copyId),
    ]);
    expect(copied).toEqual(content);
  });
});
