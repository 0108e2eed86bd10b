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
