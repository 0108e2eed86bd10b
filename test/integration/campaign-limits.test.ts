/**
 * The campaign engine at the limits of a real SES account, against DynamoDB Local on a
 * virtual clock: the daily quota, refusals about the account or the sender, calls whose
 * outcome is unknown, a worker killed after SES took a mail, issues a year old, and a run
 * whose counts a dead worker left short.
 */
import { describe, expect, it } from 'vitest';
import { createCampaigns } from '../../shared/campaigns.ts';
import { DependencyError, isNewsletterError } from '../../shared/domain/errors.ts';
import { campaignLinkHolder } from '../../shared/operations/campaign/campaign-links.ts';
import { campaignReport } from '../../shared/operations/campaign/campaign-report.ts';
import {
  resumeNewsletter,
  sendNewsletter,
} from '../../shared/operations/campaign/control-campaign.ts';
import { sendChunk } from '../../shared/operations/campaign/send-recipients.ts';
import {
  QUOTA_CHECK_MS,
  RECOUNT_AFTER_MS,
  sweepCampaigns,
} from '../../shared/operations/campaign/sweep-campaigns.ts';
import { unsubscribeByLink } from '../../shared/operations/token-links.ts';
import {
  type CampaignWorld,
  campaignWorld,
  recipientStates,
  started,
  storeWith,
} from '../support/campaign-world.ts';
import { expireTtlItems } from '../support/local-dynamo.ts';

/** Every recipient record of an issue by state. */
const states = (world: CampaignWorld, id: number) => recipientStates(world, id);

/** The unsubscribe token of a campaign mail. */
const tokenOf = (mail: { readonly unsubscribeUrl: string } | undefined): string =>
  new URL(mail?.unsubscribeUrl ?? 'https://x').searchParams.get('token') ?? '';

/** A started send whose planning is done. */
async function planned(world: CampaignWorld, count: number) {
  const people = await world.subscribe(count);
  const issue = await world.issue();
  await started(world, issue.id);
  while (world.queues.plans.length > 0) await world.planOne();
  return { people, id: issue.id };
}

describe('[campaign.quota] the daily quota pauses the campaign until SES has room again', () => {
  it('pauses with the reason quota, fails nobody, raises the alarm metric, and goes on by itself once GetSendQuota shows room', async () => {
    const world = await campaignWorld();
    const { people, id } = await planned(world, 30);
    world.ses.max24HourSend = 10;
    world.ses.failWith = () => (world.ses.mails.length >= 10 ? 'quota' : undefined);
    await world.drain();
    expect(world.ses.mails).toHaveLength(10);
    expect(await world.campaign(id)).toMatchObject({
      status: 'paused',
      pause_reason: 'quota',
      sent: 10,
      failed: 0,
    });
    expect(await states(world, id)).toMatchObject({ sent: 10, pending: 20, failed: 0 });
    expect(world.metrics.counts.CampaignsAutoPaused).toBe(1);
    // Nothing waits on the queue: no chunk cycles claim, refuse, release, requeue.
    expect(world.queues.sends).toHaveLength(0);

    // A sweep within QUOTA_CHECK_MS asks SES nothing; one after it finds no room yet.
    let asked = 0;
    const quota = world.ses.sendQuota.bind(world.ses);
    world.ses.sendQuota = async () => {
      asked += 1;
      return quota();
    };
    world.clock.t += QUOTA_CHECK_MS / 2;
    expect(await sweepCampaigns(world.deps)).toMatchObject({ resumed: 0 });
    expect(asked).toBe(0);
    world.clock.t += QUOTA_CHECK_MS;
    expect(await sweepCampaigns(world.deps)).toMatchObject({ resumed: 0 });
    expect(asked).toBe(1);
    // The 24-hour window frees: the next check resumes it, and the rest go out once each.
    world.ses.failWith = undefined;
    world.clock.t += 86_400_000;
    world.clock.t += QUOTA_CHECK_MS;
    expect(await sweepCampaigns(world.deps)).toMatchObject({ resumed: 1 });
    await world.drain();
    expect(world.ses.counts().size).toBe(30);
    expect([...world.ses.counts().values()].every((count) => count === 1)).toBe(true);
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 30, failed: 0 });
    expect(people).toHaveLength(30);
  });

  it('the operator may resume it before; a pause of the operator’s own is not resumed by the sweeper', async () => {
    const world = await campaignWorld();
    const { id } = await planned(world, 6);
    world.ses.failWith = () => (world.ses.mails.length >= 2 ? 'quota' : undefined);
    await world.drain();
    expect(await world.campaign(id)).toMatchObject({ status: 'paused', pause_reason: 'quota' });
    world.ses.failWith = undefined;
    const resumed = await resumeNewsletter(world.deps, id);
    expect(!isNewsletterError(resumed) && resumed.status).toBe('sending');
    await world.drain();
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 6 });
  });
});

describe('[campaign.account-refusal] a refusal about the account or the sender pauses, and fails nobody', () => {
  it.each([
    'account_paused',
    'sender_unverified',
    'configuration_set',
    'account_suspended',
  ] as const)(
    '%s: paused with that reason, nobody failed, and resume sends to everyone not yet sent',
    async (refusal) => {
      const world = await campaignWorld({ campaign: { failure_limit: 3 } });
      const { id } = await planned(world, 12);
      world.ses.failWith = () =>
        world.ses.mails.length >= 4 ? { failure: 'account', refusal } : undefined;
      await world.drain();
      expect(await world.campaign(id)).toMatchObject({
        status: 'paused',
        pause_reason: refusal,
        sent: 4,
        failed: 0,
      });
      expect(await states(world, id)).toMatchObject({ failed: 0, pending: 8 });
      world.ses.failWith = undefined;
      await resumeNewsletter(world.deps, id);
      await world.drain();
      expect(world.ses.counts().size).toBe(12);
      expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 12, failed: 0 });
    },
  );

  it('a refusal about one recipient’s address fails that recipient only', async () => {
    const world = await campaignWorld();
    const { people, id } = await planned(world, 5);
    world.ses.failWith = (mail) => (mail.to === people[2]?.email ? 'rejected' : undefined);
    await world.drain();
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 4, failed: 1 });
  });
});

describe('[campaign.unknown-outcome] a call with no answer is sent again, within the stated bound', () => {
  it('the mail SES may have taken goes out again once; both copies’ links unsubscribe', async () => {
    const world = await campaignWorld();
    const { people, id } = await planned(world, 8);
    const slow = people[3]?.email;
    let unanswered = 0;
    world.ses.failWith = (mail) => {
      if (mail.to !== slow || unanswered > 0) return undefined;
      unanswered += 1;
      return 'unknown';
    };
    await world.drain();
    expect(world.ses.counts().get(slow ?? '')).toBe(2);
    const others = [...world.ses.counts()].filter(([to]) => to !== slow);
    expect(others.every(([, count]) => count === 1)).toBe(true);
    expect(world.metrics.counts.CampaignUnknownOutcomes).toBe(1);
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 8, failed: 0 });
    const copies = world.ses.mails.filter((mail) => mail.to === slow).map(tokenOf);
    expect(new Set(copies).size).toBe(2);
    const deps = { ...world.deps, store: world.store };
    for (const token of copies) expect(await campaignLinkHolder(deps, token)).toBeDefined();
  });
});

describe('[campaign.every-copy-link] every copy of a duplicate carries a one-click link that works', () => {
  it('a worker killed after SES took the mail and before its outcome was recorded: the redelivered chunk mails again, and both links unsubscribe', async () => {
    const world = await campaignWorld();
    const { people, id } = await planned(world, 3);
    const chunk = world.queues.takeSend();
    if (!chunk || 'kind' in chunk) throw new Error('no chunk');
    // The worker dies right after SES took the second mail: its record is never written.
    const killed = new Error('Runtime.ExitError: the worker was killed');
    const dying = {
      ...world.deps,
      campaigns: storeWith(world, {
        recordOutcome: async (...args) => {
          if (world.ses.mails.length >= 2) throw killed;
          return world.campaigns.recordOutcome(...args);
        },
      }),
    };
    await expect(
      sendChunk(dying, chunk, {
        workers: 1,
        owner: 'doomed',
        deadline: world.clock.now() + 60_000,
        inFlight: 1,
      }),
    ).rejects.toBe(killed);
    expect(world.ses.mails).toHaveLength(2);
    // Lambda gives the message back after the visibility timeout; the claim has lapsed.
    world.clock.t += 120_000;
    await world.queues.send([chunk]);
    await world.drain();
    const twice = people[1]?.email ?? '';
    expect(world.ses.counts().get(twice)).toBe(2);
    const tokens = world.ses.mails.filter((mail) => mail.to === twice).map(tokenOf);
    const deps = { ...world.deps, store: world.store };
    // The first copy's link works, also after the second copy's claim.
    expect(await unsubscribeByLink(deps, tokens[0])).toBe('unsubscribed');
    expect((await world.store.getSubscriber(twice))?.status).toBe('U');
    expect(await campaignLinkHolder(deps, tokens[1])).toBeDefined();
    // The record holds the second copy's link; the first copy's is on the chunk only.
    const record = await world.campaigns.getRecipient(
      { newsletterId: id, legacy: false },
      people[1]?.id ?? 0,
    );
    expect(record).toMatchObject({ state: 'sent' });
    expect(record?.token_hashes).toHaveLength(1);
  });
});

describe('[campaign.recipients-last] who got an issue is kept as long as the issue', () => {
  it('a year and more later, after DynamoDB’s TTL ran, send to the new mails only the new and the report has every row; an old link is refused', async () => {
    const world = await campaignWorld({ unsubscribe_link_lifetime_days: 30 });
    const { people, id } = await planned(world, 4);
    await world.drain();
    const oldToken = tokenOf(world.ses.mails[0]);
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 4 });
    world.clock.t += 400 * 86_400_000;
    await expireTtlItems(world.table.client, world.table.name, world.clock.now() / 1000);
    const newcomers = await world.subscribe(2, {}, 'newcomer');
    const resend = await sendNewsletter(world.deps, { id, newOnly: true });
    expect(isNewsletterError(resend)).toBe(false);
    world.ses.mails.length = 0;
    await world.drain();
    expect([...world.ses.counts().keys()].sort()).toEqual(
      newcomers.map((person) => person.email).sort(),
    );
    const report = await campaignReport(world.deps, id);
    if (isNewsletterError(report)) throw new Error(report.message);
    expect(report.counts).toMatchObject({ recipients: 6, sent: 6 });
    // The link's own lifetime still ends it, on every click.
    const deps = { ...world.deps, store: world.store };
    expect(await campaignLinkHolder(deps, oldToken)).toBeUndefined();
    expect(people).toHaveLength(4);
  });
});

describe('[campaign.complete] a run a dead worker left short ends within about a minute of its last mail', () => {
  it('the sweeper recounts a quiet run 20 s after its last progress and ends it with the right counts in one write', async () => {
    const world = await campaignWorld();
    const { id } = await planned(world, 10);
    const chunk = world.queues.takeSend();
    if (!chunk || 'kind' in chunk) throw new Error('no chunk');
    // The worker records every mail, then dies before it adds them to the campaign's counts.
    const killed = new Error('killed before counting');
    const dying = {
      ...world.deps,
      campaigns: storeWith(world, {
        updateCampaign: async () => {
          throw killed;
        },
      }),
    };
    await expect(
      sendChunk(dying, chunk, {
        workers: 1,
        owner: 'doomed',
        deadline: world.clock.now() + 60_000,
        inFlight: 4,
      }),
    ).rejects.toBe(killed);
    expect(await states(world, id)).toMatchObject({ sent: 10, pending: 0 });
    expect(await world.campaign(id)).toMatchObject({ status: 'sending', sent: 0 });
    // Too soon: a worker may still be counting.
    world.clock.t += RECOUNT_AFTER_MS - 1_000;
    expect(await sweepCampaigns(world.deps)).toMatchObject({ recounted: 0 });
    world.clock.t += 1_000;
    expect(await sweepCampaigns(world.deps)).toMatchObject({ recounted: 1, repaired: 0 });
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 10, total: 10 });
    // A worker's late count can no longer land on the ended run.
    const late = await world.campaigns.updateCampaign(id, {
      expect: { statuses: ['sending', 'paused', 'cancelled'], run: 1 },
      add: { sent: 3 },
    });
    expect(late).toBeUndefined();
  });
});

describe('[campaign.quota] a send says first when the issue does not fit in the daily quota', () => {
  it('the function class answers over_quota with the figures until accept_quota; a person asked may go on', async () => {
    const world = await campaignWorld();
    await world.subscribe(12);
    await world.subscribe(3, { lists: [2] }, 'other');
    const issue = await world.issue();
    world.ses.max24HourSend = 10;
    const operations = createCampaigns({ ...world.deps, quota: world.ses });
    const refused = await operations.send_newsletter({ id: issue.id });
    expect(refused).toMatchObject({
      code: 'over_quota',
      status: 409,
      message: `Newsletter ${issue.id} goes to 12; this account can send 10 more in the next 24 hours; it will pause when the quota runs out and go on by itself when there is room again. Send it with accept_quota to go on.`,
    });
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'draft', run: 0 });
    expect(await operations.send_newsletter({ id: issue.id, accept_quota: 'yes' })).toMatchObject({
      code: 'invalid_parameter',
    });
    const asked: string[] = [];
    const declined = await sendNewsletter(world.deps, {
      id: issue.id,
      quota: world.ses,
      confirmOverQuota: async (message) => {
        asked.push(message);
        return false;
      },
    });
    expect(isNewsletterError(declined) && declined.code).toBe('over_quota');
    expect(asked).toHaveLength(1);
    const accepted = await operations.send_newsletter({ id: issue.id, accept_quota: true });
    expect(!isNewsletterError(accepted) && accepted.status).toBe('sending');
  });

  it('counts nobody when the room is above the highest subscriber id, and goes on, saying so, when SES cannot be asked', async () => {
    const world = await campaignWorld();
    await world.subscribe(5);
    const issue = await world.issue();
    let pages = 0;
    const counting = storeWith(world, {
      memberPage: async (...args) => {
        pages += 1;
        return world.campaigns.memberPage(...args);
      },
    });
    const deps = { ...world.deps, campaigns: counting };
    let unknown = 0;
    const started1 = await sendNewsletter(deps, { id: issue.id, quota: world.ses });
    expect(!isNewsletterError(started1) && started1.status).toBe('sending');
    expect(pages).toBe(0);
    const second = await world.issue({ subject: 'Second' });
    const away = {
      sendQuota: async () => {
        throw new DependencyError('ses');
      },
    };
    const started2 = await sendNewsletter(deps, {
      id: second.id,
      quota: away,
      quotaUnknown: () => {
        unknown += 1;
      },
    });
    expect(!isNewsletterError(started2) && started2.status).toBe('sending');
    expect(unknown).toBe(1);
    expect(world.log.lines.map((line) => line.event)).toContain('send_quota_unknown');
  });
});
