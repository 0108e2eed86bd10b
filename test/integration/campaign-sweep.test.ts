/**
 * The sweeper on its own against DynamoDB Local (shared/operations/campaign/sweep-campaigns.ts):
 * when a sending campaign counts as stalled and when it is repaired, to the millisecond; what
 * a repair recounts; and the `campaign_stalled` and `campaign_repaired` lines the runbook's
 * CampaignStalled alarm points at (docs/deploy.md).
 */
import { describe, expect, it } from 'vitest';
import type { RecipientOutcome } from '../../shared/adapters/store/campaign-store-port.ts';
import {
  REPAIR_AFTER_MS,
  sweepCampaigns,
} from '../../shared/operations/campaign/sweep-campaigns.ts';
import {
  type CampaignWorld,
  campaignWorld,
  deadClaim,
  linesOf,
  started,
  storeWith,
} from '../support/campaign-world.ts';

const MINUTE = 60_000;
/** The settings' default campaign.stall_minutes. */
const STALL_MS = 10 * MINUTE;

/** A sending campaign of `count` subscribers whose planning is done and whose mail is queued. */
async function sending(world: CampaignWorld, count: number) {
  const people = await world.subscribe(count);
  const issue = await world.issue();
  await started(world, issue.id);
  while (world.queues.plans.length > 0) await world.planOne();
  return { people, issue: await world.campaign(issue.id) };
}

/** Sets when the campaign last settled a mail and last saw a worker. */
async function seen(world: CampaignWorld, id: number, times: { progress: number; active: number }) {
  const campaign = await world.campaign(id);
  const updated = await world.campaigns.updateCampaign(id, {
    expect: { statuses: ['sending'], run: campaign.run },
    set: {
      progress_at: new Date(times.progress).toISOString(),
      active_at: new Date(times.active).toISOString(),
    },
  });
  if (!updated) throw new Error('the campaign is not sending');
}

describe('[campaign.sweep] a campaign is stalled once it settled no mail for the stall minutes', () => {
  it('counts from its last progress, not its start, from exactly the stall minutes on, and logs since when', async () => {
    const world = await campaignWorld();
    const { issue } = await sending(world, 3);
    // Started long ago, but it settled a mail 2 minutes ago: not stalled. Quiet and short of
    // its total, it is recounted once ([campaign.complete]); its records are not all settled.
    const progress = world.clock.now() + 30 * MINUTE;
    world.clock.t = progress + 2 * MINUTE;
    await seen(world, issue.id, { progress, active: world.clock.now() });
    expect(await sweepCampaigns(world.deps)).toEqual({
      sending: 1,
      stalled: 0,
      repaired: 0,
      recounted: 1,
      resumed: 0,
    });
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sending', sent: 0 });
    // A millisecond short of the stall minutes: still not.
    world.clock.t = progress + STALL_MS - 1;
    await seen(world, issue.id, { progress, active: world.clock.now() });
    expect(await sweepCampaigns(world.deps)).toMatchObject({ stalled: 0 });
    expect(linesOf(world, 'campaign_stalled')).toEqual([]);
    // Exactly the stall minutes: stalled, and the line says since when.
    world.clock.t = progress + STALL_MS;
    await seen(world, issue.id, { progress, active: world.clock.now() });
    expect(await sweepCampaigns(world.deps)).toEqual({
      sending: 1,
      stalled: 1,
      repaired: 0,
      recounted: 0,
      resumed: 0,
    });
    expect(linesOf(world, 'campaign_stalled')).toEqual([
      {
        level: 'warn',
        event: 'campaign_stalled',
        fields: { newsletter_id: issue.id, since: new Date(progress).toISOString() },
      },
    ]);
    expect(world.metrics.counts.StalledCampaigns).toBe(1);
  });

  it('skips an issue listed as sending that is no longer sending, or gone, when it is read', async () => {
    const world = await campaignWorld();
    const { issue } = await sending(world, 2);
    world.clock.t += 60 * MINUTE;
    // Paused, or deleted, between the sweeper's listing and its read of the campaign.
    const campaigns = storeWith(world, {
      campaignsWithStatus: async () => [issue.id, 999_999],
      getCampaign: async (id) => {
        const campaign = await world.campaigns.getCampaign(id);
        return campaign ? { ...campaign, status: 'paused' } : undefined;
      },
    });
    const sweep = await sweepCampaigns({ ...world.deps, campaigns });
    expect(sweep).toEqual({ sending: 2, stalled: 0, repaired: 0, recounted: 0, resumed: 0 });
    expect(linesOf(world, 'campaign_stalled')).toEqual([]);
    expect(linesOf(world, 'campaign_repaired')).toEqual([]);
    expect(world.metrics.counts.StalledCampaigns).toBe(0);
  });
});

describe('[campaign.sweep] a campaign no worker touched for 6 minutes is repaired', () => {
  it('from exactly 6 minutes on', async () => {
    const world = await campaignWorld();
    const { issue } = await sending(world, 2);
    const active = world.clock.now();
    world.clock.t = active + REPAIR_AFTER_MS - 1;
    await seen(world, issue.id, { progress: world.clock.now(), active });
    expect(await sweepCampaigns(world.deps)).toMatchObject({
      repaired: 0,
      recounted: 0,
      resumed: 0,
    });
    world.clock.t = active + REPAIR_AFTER_MS;
    expect(await sweepCampaigns(world.deps)).toMatchObject({
      repaired: 1,
      recounted: 0,
      resumed: 0,
    });
    expect((await world.campaign(issue.id)).active_at).toBe(
      new Date(world.clock.now()).toISOString(),
    );
  });

  it('recounts sent, skipped, failed and the total from the records, logs both counts and queues the unsent again', async () => {
    const world = await campaignWorld();
    const { people, issue } = await sending(world, 10);
    world.queues.sends.length = 0;
    const now = world.clock.now();
    // What a dead worker left: its chunk claimed, 3 sent, 2 failed and 1 skipped, none of it
    // counted; 4 not reached. The campaign's own counters are off (1 sent, 2 skipped, 4 failed).
    const first = people[0]?.id ?? 0;
    expect(await world.campaigns.claimChunk(issue.id, issue.run, first, deadClaim(now))).toEqual({
      claimed: true,
      claims: 1,
    });
    const settle = async (some: typeof people, outcome: RecipientOutcome) => {
      for (const person of some)
        await world.campaigns.recordOutcome(issue.id, issue.run, person.id, outcome, new Date(now));
    };
    const sent = { state: 'sent', messageId: 'm', tokenHash: 'h', linkExpiresAt: 2e9 } as const;
    await settle(people.slice(0, 3), sent);
    await settle(people.slice(3, 5), { state: 'failed', error: 'rejected' });
    await settle(people.slice(9), { state: 'skipped', reason: 'unsubscribed' });
    await world.campaigns.updateCampaign(issue.id, {
      expect: { statuses: ['sending'], run: issue.run },
      set: { sent: 1, skipped: 2, failed: 4 },
    });
    world.clock.t += REPAIR_AFTER_MS;
    expect(await sweepCampaigns(world.deps)).toMatchObject({
      repaired: 1,
      recounted: 0,
      resumed: 0,
    });
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'sending',
      sent: 3,
      skipped: 1,
      failed: 2,
      total: 10,
    });
    expect(linesOf(world, 'campaign_repaired')).toEqual([
      {
        level: 'warn',
        event: 'campaign_repaired',
        fields: {
          newsletter_id: issue.id,
          run: issue.run,
          unsent: 4,
          counted_before: 7,
          counted_now: 6,
        },
      },
    ]);
    // The four not reached, in the chunk whose claim lapsed, are queued again and mailed.
    await world.drain();
    expect(world.ses.mails.map((mail) => mail.to).sort()).toEqual(
      [...people.slice(5, 9)].map((person) => person.email).sort(),
    );
  });

  it('does nothing more when the campaign changed between its read and the recount', async () => {
    const world = await campaignWorld();
    const { issue } = await sending(world, 2);
    world.queues.sends.length = 0;
    world.clock.t += REPAIR_AFTER_MS;
    // Paused by the operator just before the sweeper's recount.
    const campaigns = storeWith(world, {
      countSettled: async (space, run) => {
        const id = space.newsletterId;
        const current = await world.campaign(id);
        await world.campaigns.updateCampaign(id, {
          expect: { statuses: ['sending'], run: current.run },
          set: { status: 'paused', pause_reason: 'operator' },
        });
        return world.campaigns.countSettled(space, run);
      },
    });
    await sweepCampaigns({ ...world.deps, campaigns });
    expect(linesOf(world, 'campaign_repaired')).toEqual([]);
    expect(world.queues.plans).toEqual([]);
    expect(world.queues.sends).toEqual([]);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'paused' });
  });
});

describe('[campaign.rate-kept] every sweep publishes the share of its rate each sending campaign kept', () => {
  it('samples a campaign at one sweep and publishes its sends since at the next, with a line when behind', async () => {
    const world = await campaignWorld({ campaign: { rate: 0.1 } });
    // 15 recipients: after 9 sends, 6 are left, a minute's worth, so the run is not in its tail.
    const { issue } = await sending(world, 15);
    expect(issue.rate).toBe(0.1);
    // The first sweep of this container only takes the campaign's sample.
    await sweepCampaigns(world.deps);
    expect(world.metrics.percents).toEqual([]);
    // A minute later, 3 sends where the rate allowed 6: 50%.
    world.clock.t += MINUTE;
    await world.campaigns.updateCampaign(issue.id, {
      expect: { statuses: ['sending'], run: issue.run },
      add: { sent: 3 },
    });
    await sweepCampaigns(world.deps);
    expect(world.metrics.percents).toEqual([
      { name: 'CampaignRateKept', value: 50, dimensions: { newsletter: String(issue.id) } },
    ]);
    expect(linesOf(world, 'campaign_behind_rate')).toEqual([
      {
        level: 'warn',
        event: 'campaign_behind_rate',
        fields: { newsletter_id: issue.id, run: issue.run, percent: 50, rate: 0.1 },
      },
    ]);
    // The next minute at the rate: 100%, and no line.
    world.clock.t += MINUTE;
    await world.campaigns.updateCampaign(issue.id, {
      expect: { statuses: ['sending'], run: issue.run },
      add: { sent: 6 },
    });
    await sweepCampaigns(world.deps);
    expect(world.metrics.percents.map((each) => each.value)).toEqual([50, 100]);
    expect(linesOf(world, 'campaign_behind_rate')).toHaveLength(1);
  });
});
