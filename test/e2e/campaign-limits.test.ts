/**
 * A send at the limits of a real SES account, against the synthesized engine under the local
 * cloud, through the operator's CLI: the daily quota, a refusal about the account or the
 * sender, and an SES that takes a mail but answers too late. What must hold each time: nobody
 * is skipped or failed for the account's sake, and a mail goes twice only for an unanswered
 * call, with both copies' one-click links working.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredMail } from '../../infra/local/stand-ins/ses-local.ts';
import {
  addressesOf,
  type CampaignOperator,
  campaignOperator,
  until,
} from './support/campaign-operator.ts';
import {
  type LocalService,
  listUnsubscribeUrl,
  startLocalService,
} from './support/local-service.ts';

vi.setConfig({ testTimeout: 120_000 });

let service: LocalService;
let operator: CampaignOperator;
const READERS = Array.from({ length: 24 }, (_, index) => `limit-reader${index}@example.net`);

beforeAll(async () => {
  service = await startLocalService();
  operator = await campaignOperator(service);
  for (const email of READERS) await operator.add(email, [4]);
});

afterAll(async () => {
  await operator?.close();
  await service?.stop();
});

/** Fires the sweeper's rule, as EventBridge does every minute. */
async function sweep(): Promise<void> {
  const [rule] = service.stack.cloud.stack
    .scheduleRules()
    .filter((each) => each.logicalId.includes('Sweep'));
  if (!rule) throw new Error('no sweep rule');
  await service.stack.cloud.fireRule(rule.logicalId);
}

/** The address of one mail. */
const to = (mail: StoredMail): string => addressesOf([mail])[0] ?? '';

describe('[campaign.quota] the account’s daily quota', () => {
  it('send says the issue does not fit and stops unless told to go on; then it pauses at the quota, fails nobody, and goes on by itself when there is room', async () => {
    const id = await operator.createIssue('Quota', [4]);
    const { sentLast24Hours } = service.ses.sendQuota();
    service.ses.setQuota({ max24HourSend: sentLast24Hours + 10 });
    service.ses.enforceQuota(true);
    try {
      const refused = await operator.cli('newsletters', 'send', String(id));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `Newsletter ${id} goes to 24; this account can send 10 more in the next 24 hours; it will pause when the quota runs out`,
      );
      expect(refused.stderr).toContain('Pass --yes to send it anyway');
      expect(await operator.campaigns.getCampaign(id)).toMatchObject({ status: 'draft' });

      await operator.cliOk('newsletters', 'send', String(id), '--yes');
      await until(
        async () => (await operator.campaigns.getCampaign(id))?.status === 'paused',
        'the pause at the quota',
      );
      await service.stack.settled();
      expect(await operator.campaigns.getCampaign(id)).toMatchObject({
        status: 'paused',
        pause_reason: 'quota',
        failed: 0,
      });
      expect(await operator.mailsOf('Quota')).toHaveLength(10);
      expect(await operator.report(id)).toMatchObject({ sent: 10, failed: 0, unsent: 14 });
      expect(service.logLines.some((line) => line.includes('"CampaignsAutoPaused"'))).toBe(true);

      // A day passes; the sweeper last asked SES ten minutes ago: it asks again, and goes on.
      service.ses.ageSends(86_400_000);
      await operator.db.send(
        new UpdateCommand({
          TableName: service.stack.tableName,
          Key: { pk: `NEWSLETTER#${id}`, sk: 'newsletter' },
          UpdateExpression: 'SET quota_checked_at = :then',
          ExpressionAttributeValues: { ':then': new Date(Date.now() - 600_000).toISOString() },
        }),
      );
      await sweep();
      await until(
        async () => (await operator.campaigns.getCampaign(id))?.status === 'paused',
        'the second pause at the quota',
      );
      // Ten more went out, and the quota stopped it again: a second day finishes it.
      service.ses.ageSends(86_400_000);
      await operator.cliOk('newsletters', 'resume', String(id));
      await until(
        async () => (await operator.campaigns.getCampaign(id))?.status === 'sent',
        'the end of the send',
      );
      expect(addressesOf(await operator.mailsOf('Quota'))).toEqual([...READERS].sort());
      expect(await operator.report(id)).toMatchObject({ sent: 24, failed: 0 });
    } finally {
      service.ses.enforceQuota(false);
      service.ses.setQuota({ max24HourSend: 50_000 });
    }
  });
});

describe('[campaign.account-refusal] SES refuses the account or the sender', () => {
  it.each(['account_paused', 'sender_unverified'] as const)(
    '%s: the send pauses with that reason, nobody is failed, and resume reaches everyone once',
    async (refusal) => {
      const subject = `Refused ${refusal}`;
      const id = await operator.createIssue(subject, [4]);
      await operator.cliOk('newsletters', 'send', String(id));
      await until(async () => (await operator.mailsOf(subject)).length >= 3, 'the first mails');
      service.ses.refuseSends(refusal);
      try {
        await until(
          async () => (await operator.campaigns.getCampaign(id))?.status === 'paused',
          'the pause',
        );
        await service.stack.settled();
        expect(await operator.campaigns.getCampaign(id)).toMatchObject({
          pause_reason: refusal,
          failed: 0,
        });
        expect(await operator.report(id)).toMatchObject({ failed: 0 });
      } finally {
        service.ses.refuseSends(undefined);
      }
      await operator.cliOk('newsletters', 'resume', String(id));
      await until(
        async () => (await operator.campaigns.getCampaign(id))?.status === 'sent',
        'the end of the send',
      );
      expect(addressesOf(await operator.mailsOf(subject))).toEqual([...READERS].sort());
      expect(await operator.report(id)).toMatchObject({ sent: READERS.length, failed: 0 });
    },
  );
});

describe('[campaign.budget] two campaigns at once, SES enforcing the account’s rate', () => {
  it('share the one campaign rate: SES refuses nothing, both send all along, each reader gets each issue once, and activation mail goes out meanwhile', async () => {
    const readers = (list: number) =>
      Array.from({ length: 60 }, (_, index) => `budget-${list}-reader${index}@example.net`);
    // Lists 1 and 3: list 2 is pre-assigned to everyone, list 4 is the other tests'.
    const [first, second] = [readers(1), readers(3)];
    for (const [list, addresses] of [
      [1, first],
      [3, second],
    ] as const)
      for (let start = 0; start < addresses.length; start += 10)
        await Promise.all(
          addresses.slice(start, start + 10).map((email) => operator.add(email, [list])),
        );
    const one = await operator.createIssue('Budget one', [1]);
    const two = await operator.createIssue('Budget two', [3]);
    const logsBefore = service.logLines.length;
    service.ses.setQuota({ max24HourSend: 1_000_000 });
    service.ses.enforceQuota(true);
    const newcomers = ['budget-newcomer1@example.net', 'budget-newcomer2@example.net'];
    try {
      await operator.cliOk('newsletters', 'send', String(one));
      await operator.cliOk('newsletters', 'send', String(two));
      // Sign-ups while both send: their activation mail takes the share the budget leaves.
      await until(async () => (await operator.mailsOf('Budget two')).length >= 5, 'the second');
      for (const email of newcomers) {
        const answer = await service.post('/subscribe', { email, name: 'New', lists: [4] });
        expect(answer.status).toBe(200);
      }
      await until(
        async () =>
          (await operator.campaigns.getCampaign(one))?.status === 'sent' &&
          (await operator.campaigns.getCampaign(two))?.status === 'sent',
        'the end of both sends',
      );
      await service.stack.settled();
    } finally {
      service.ses.enforceQuota(false);
      service.ses.setQuota({ max24HourSend: 50_000 });
    }
    const mailsOne = await operator.mailsOf('Budget one');
    const mailsTwo = await operator.mailsOf('Budget two');
    expect(addressesOf(mailsOne)).toEqual([...first].sort());
    expect(addressesOf(mailsTwo)).toEqual([...second].sort());
    // Both at once: the second's first mail came before the first's last.
    const seconds = (mails: readonly StoredMail[]) => mails.map((mail) => mail.at);
    expect(Math.min(...seconds(mailsTwo))).toBeLessThanOrEqual(Math.max(...seconds(mailsOne)));
    // SES, enforcing the account's 14 a second, refused no campaign mail and no activation.
    const logs = service.logLines.slice(logsBefore);
    expect(logs.filter((line) => line.includes('"CampaignThrottles"'))).toEqual([]);
    expect(logs.filter((line) => line.includes('Maximum sending rate exceeded'))).toEqual([]);
    const mailbox = await service.stack.mailboxNow();
    for (const email of newcomers)
      expect(
        mailbox.filter((mail) => to(mail) === email),
        email,
      ).toHaveLength(1);
    expect(await operator.report(one)).toMatchObject({ sent: 60, failed: 0, skipped: 0 });
    expect(await operator.report(two)).toMatchObject({ sent: 60, failed: 0, skipped: 0 });
  });
});

describe('[campaign.unknown-outcome] SES takes a mail and answers too late', () => {
  it('that one reader gets it twice, nobody else does, and the first copy’s one-click link unsubscribes', async () => {
    const id = await operator.createIssue('Slow answer', [4]);
    service.ses.slowAnswers(1, 4_000);
    await operator.cliOk('newsletters', 'send', String(id));
    await until(
      async () => (await operator.campaigns.getCampaign(id))?.status === 'sent',
      'the end of the send',
    );
    const mails = await operator.mailsOf('Slow answer');
    const counts = new Map<string, number>();
    for (const mail of mails) counts.set(to(mail), (counts.get(to(mail)) ?? 0) + 1);
    const twice = [...counts].filter(([, count]) => count === 2).map(([address]) => address);
    expect(twice).toHaveLength(1);
    expect(counts.size).toBe(READERS.length);
    expect(mails).toHaveLength(READERS.length + 1);
    expect(service.logLines.some((line) => line.includes('"CampaignUnknownOutcomes"'))).toBe(true);
    // [campaign.every-copy-link] The first copy, whose answer never came, still unsubscribes.
    const [first, second] = mails.filter((mail) => to(mail) === twice[0]);
    const links = [first, second].map((mail) => listUnsubscribeUrl(mail as StoredMail) ?? '');
    expect(new Set(links).size).toBe(2);
    const oneClick = await service.request('POST', links[0] ?? '', {
      body: 'List-Unsubscribe=One-Click',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(oneClick.status).toBe(200);
    expect(await operator.statusOf(twice[0] ?? '')).toBe('U');
    expect(await operator.report(id)).toMatchObject({ sent: READERS.length, unsubscribed: 1 });
  });
});
