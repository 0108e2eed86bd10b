/**
 * An issue an earlier version sent, after the upgrade to planned chunks and spread records
 * (docs/deploy.md, "Upgrading"): its records stay in their one old partition and are read
 * there; a run it left under way cannot be resumed, and says so.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { recordSpaceOf } from '../../shared/adapters/store/campaign-store-port.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { mintToken } from '../../shared/domain/tokens.ts';
import { campaignReport } from '../../shared/operations/campaign/campaign-report.ts';
import { resumeNewsletter } from '../../shared/operations/campaign/control-campaign.ts';
import { unsubscribeByLink } from '../../shared/operations/token-links.ts';
import { type CampaignWorld, campaignWorld, started } from '../support/campaign-world.ts';

/** Issue `id` as the earlier version left it: run 1 in `status`, no `records_spread`. */
async function leftBy(world: CampaignWorld, id: number, status: 'sent' | 'paused', total: number) {
  await world.campaigns.updateCampaign(id, {
    expect: { statuses: ['draft'] },
    set: { status, max_subscriber_id: 1_000, plan_done: true, total, sent: total },
    add: { run: 1 },
  });
}

/** A record of the earlier version, in the issue's one partition, with its link's hash. */
async function oldRecord(world: CampaignWorld, id: number, subscriberId: number, hash: string) {
  await world.table.client.send(
    new PutCommand({
      TableName: world.table.name,
      Item: {
        ...keys.legacyRecipient(id, subscriberId),
        subscriber_id: subscriberId,
        state: 'sent',
        run: 1,
        attempts: 1,
        message_id: `old-${subscriberId}`,
        token_hash: hash,
        link_expires_at: Math.floor(world.clock.now() / 1000) + 86_400,
      },
    }),
  );
}

describe('[campaign.recipients-last] an issue an earlier version sent', () => {
  it('keeps its report, its links work, and send to the new reaches only whom it did not', async () => {
    const world = await campaignWorld();
    const [ada, bo, cy] = await world.subscribe(3);
    if (!ada || !bo || !cy) throw new Error('three');
    const issue = await world.issue();
    await leftBy(world, issue.id, 'sent', 2);
    const adaLink = mintToken();
    await oldRecord(world, issue.id, ada.id, adaLink.hash);
    await oldRecord(world, issue.id, bo.id, mintToken().hash);
    expect(recordSpaceOf(await world.campaign(issue.id))).toEqual({
      newsletterId: issue.id,
      legacy: true,
    });

    const rows: number[] = [];
    const report = await campaignReport({ campaigns: world.campaigns }, issue.id, (page) => {
      rows.push(...page.map((row) => row.subscriber_id));
    });
    expect(isNewsletterError(report) ? undefined : report.counts).toMatchObject({ sent: 2 });
    expect(rows).toEqual([ada.id, bo.id]);

    // The link in the mail the earlier version sent: three parts, its hash on the old record.
    const deps = { ...world.deps, store: world.store };
    expect(await unsubscribeByLink(deps, `${issue.id}.${ada.id}.${adaLink.raw}`)).toBe(
      'unsubscribed',
    );
    expect(
      (await world.campaigns.getRecipient({ newsletterId: issue.id, legacy: true }, ada.id))
        ?.unsubscribed_at,
    ).toBeDefined();

    await started(world, issue.id, true);
    expect(await world.campaign(issue.id)).toMatchObject({ legacy_records: true, run: 2 });
    await world.drain();
    expect(world.ses.mails.map((mail) => mail.to)).toEqual([cy.email]);
    // The counts go on from the earlier run's.
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', total: 3, sent: 3 });
  });

  it('a run it left paused is not resumed: the operator is told why and what to do', async () => {
    const world = await campaignWorld();
    await world.subscribe(2);
    const issue = await world.issue();
    await leftBy(world, issue.id, 'paused', 2);
    const refused = await resumeNewsletter(world.deps, issue.id);
    expect(isNewsletterError(refused) && refused.code).toBe('invalid_state');
    expect(isNewsletterError(refused) && refused.message).toMatch(/earlier version.*Cancel it/);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'paused' });
  });
});
