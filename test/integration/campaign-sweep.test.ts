/**
 * The sweeper on its own against DynamoDB Local (shared/operations/campaign/sweep-campaigns.ts):
 * when a sending campaign counts as stalled and when it is repaired, to the millisecond; what
 * a repair recounts; and the `campaign_stalled` and `campaign_repaired` lines the runbook's
 * CampaignStalled alarm points at (docs/deploy.md).
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import type { RecipientOutcome } from '../../shared/adapters/store/campaign-store-port.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import { LONGEST_BACKOFF_MS } from '../../shared/operations/campaign/send-recipients.ts';
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

describe('[campaign.sweep] a campaign no worker touched for REPAIR_AFTER_MS (435 s) is repaired', () => {
  it('from exactly REPAIR_AFTER_MS on', async () => {
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

  it('queues the unsent again at once, reading none of its records; the recount once it is quiet puts the counts right and ends the run', async () => {
    const world = await campaignWorld();
    const { people, issue } = await sending(world, 10);
    world.queues.sends.length = 0;
    const now = world.clock.now();
    // What a dead worker left: its chunk claimed, 3 sent, 2 failed and 1 skipped, half of it
    // counted (1 sent, 2 failed); 4 not reached.
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
      set: { sent: 1, failed: 2 },
    });
    world.clock.t += REPAIR_AFTER_MS;
    const reads = countRecordReads(world);
    expect(await sweepCampaigns(world.deps)).toMatchObject({
      repaired: 1,
      recounted: 0,
      resumed: 0,
    });
    expect(reads()).toBe(0);
    expect(linesOf(world, 'campaign_repaired')).toEqual([
      {
        level: 'warn',
        event: 'campaign_repaired',
        fields: { newsletter_id: issue.id, run: issue.run, walk: 1, counted: 3, total: 10 },
      },
    ]);
    // The four not reached, in the chunk whose claim lapsed, are queued again and mailed.
    await world.drain();
    expect(world.ses.mails.map((mail) => mail.to).sort()).toEqual(
      [...people.slice(5, 9)].map((person) => person.email).sort(),
    );
    // The counts still hold what the dead worker's counters said; quiet, the run is recounted.
    world.clock.t += MINUTE;
    expect(await sweepCampaigns(world.deps)).toMatchObject({ recounted: 1 });
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'sent',
      sent: 7,
      skipped: 1,
      failed: 2,
      total: 10,
    });
  });

  it('does nothing more when the campaign changed between its read and the repair', async () => {
    const world = await campaignWorld();
    const { issue } = await sending(world, 2);
    world.queues.sends.length = 0;
    world.clock.t += REPAIR_AFTER_MS;
    // Paused by the operator just after the sweeper read it.
    const campaigns = storeWith(world, {
      getCampaign: async (id) => {
        const read = await world.campaigns.getCampaign(id);
        if (read?.status === 'sending')
          await world.campaigns.updateCampaign(id, {
            expect: { statuses: ['sending'], run: read.run },
            set: { status: 'paused', pause_reason: 'operator' },
          });
        return read;
      },
    });
    expect(await sweepCampaigns({ ...world.deps, campaigns })).toMatchObject({ repaired: 0 });
    expect(linesOf(world, 'campaign_repaired')).toEqual([]);
    expect(world.queues.plans).toEqual([]);
    expect(world.queues.sends).toEqual([]);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'paused' });
  });

  it('a chunk put back for the longest backoff after a throttle (375 s) is no cause for a repair', async () => {
    const world = await campaignWorld();
    const { issue } = await sending(world, 3);
    // Throttled for the ninth round in a row: the work waits 300 s, stretched by the jitter.
    const queued = world.queues.sends[0];
    if (!queued || 'kind' in queued.chunk) throw new Error('no chunk');
    queued.chunk = { ...queued.chunk, throttled: 8 };
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    world.ses.failWith = () => 'throttled';
    try {
      expect(await world.sendOne()).toMatchObject({ stopped: 'throttled', requeued: 3 });
    } finally {
      random.mockRestore();
      world.ses.failWith = undefined;
    }
    const back = world.queues.sends[0]?.visibleAt ?? 0;
    const active = Date.parse((await world.campaign(issue.id)).active_at ?? '');
    expect(back - active).toBeGreaterThan(370_000);
    expect(back - active).toBeLessThanOrEqual(LONGEST_BACKOFF_MS);
    // The sweep just before the work comes back leaves it alone.
    world.clock.t = back - 1;
    expect(await sweepCampaigns(world.deps)).toMatchObject({ repaired: 0 });
    expect(world.queues.plans).toEqual([]);
    expect(REPAIR_AFTER_MS).toBeGreaterThan(LONGEST_BACKOFF_MS);
    await world.drain();
    expect(world.ses.counts().size).toBe(3);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent: 3 });
  });
});

describe('[campaign.complete] the sweeper’s work does not grow with the issue', () => {
  it('recounts a run of 6,000 records a bounded part per sweep, goes on where it stopped, ends the run exactly, and resumes a paused run meanwhile', async () => {
    const reads = new Map<string, number>();
    const world = await campaignWorld({}, {}, (operation, capacity) => {
      const units = capacity.reduce((sum, each) => sum + (each.CapacityUnits ?? 0), 0);
      reads.set(operation, (reads.get(operation) ?? 0) + units);
    });
    const RECORDS = 6_000;
    const issue = await world.issue();
    await started(world, issue.id);
    world.queues.plans.length = 0;
    const at = new Date(world.clock.now()).toISOString();
    // A large run, at a scaled size: every record settled, the counts 5 short (a dead worker).
    const items = Array.from({ length: RECORDS }, (_, index) => ({
      ...keys.recipient(issue.id, index + 1),
      subscriber_id: index + 1,
      state: index % 100 === 0 ? 'skipped' : 'sent',
      run: 1,
      at,
      ...(index % 100 === 0 ? { reason: 'unsubscribed' } : { message_id: `m-${index}` }),
    }));
    for (let start = 0; start < items.length; start += 25)
      await world.table.client.send(
        new BatchWriteCommand({
          RequestItems: {
            [world.table.name]: items
              .slice(start, start + 25)
              .map((Item) => ({ PutRequest: { Item } })),
          },
        }),
      );
    await world.campaigns.updateCampaign(issue.id, {
      expect: { statuses: ['sending'], run: 1 },
      set: {
        plan_done: true,
        total: RECORDS,
        sent: RECORDS - 60 - 5,
        skipped: 60,
        progress_at: at,
        active_at: at,
      },
    });
    // Another issue, paused for the daily quota long enough ago to be asked about.
    const paused = await world.issue({ subject: 'Paused' });
    await started(world, paused.id);
    world.queues.plans.length = 0;
    await world.campaigns.updateCampaign(paused.id, {
      expect: { statuses: ['sending'], run: 1 },
      set: {
        status: 'paused',
        pause_reason: 'quota',
        quota_checked_at: new Date(world.clock.now() - 10 * MINUTE).toISOString(),
      },
    });
    const full = async () => {
      reads.clear();
      await world.campaigns.countSettled({ newsletterId: issue.id, legacy: false }, 1);
      return reads.get('query:recipients') ?? 0;
    };
    const wholeCount = await full();
    expect(wholeCount).toBeGreaterThan(0);

    world.clock.t += MINUTE;
    reads.clear();
    const deps = { ...world.deps, recountRecords: 1_000 };
    expect(await sweepCampaigns(deps)).toMatchObject({ recounted: 1, resumed: 1 });
    // A sixth of the records at most, whatever the issue's size; the paused run goes on.
    expect(reads.get('query:recipients') ?? 0).toBeLessThanOrEqual(wholeCount / 5);
    expect(await world.campaign(paused.id)).toMatchObject({ status: 'sending' });
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'sending',
      recount: expect.objectContaining({ run: 1 }),
    });
    let sweeps = 1;
    // Nobody works on it meanwhile: a repair every REPAIR_AFTER_MS queues its (done) chunks
    // again, and the recount goes on where it stopped.
    while ((await world.campaign(issue.id)).status === 'sending' && sweeps < 20) {
      world.clock.t += MINUTE;
      reads.clear();
      await sweepCampaigns(deps);
      expect(reads.get('query:recipients') ?? 0).toBeLessThanOrEqual(wholeCount / 5);
      sweeps += 1;
    }
    expect(sweeps).toBeGreaterThanOrEqual(6);
    const ended = await world.campaign(issue.id);
    expect(ended).toMatchObject({ status: 'sent', sent: RECORDS - 60, skipped: 60, failed: 0 });
    expect(ended.recount).toBeUndefined();
  });

  it('starts a recount afresh when the run settled something since it began', async () => {
    const world = await campaignWorld();
    const { people, issue } = await sending(world, 6);
    world.queues.sends.length = 0;
    const now = world.clock.now();
    for (const person of people)
      await world.campaigns.recordOutcome(
        issue.id,
        issue.run,
        person.id,
        { state: 'sent', messageId: 'm', tokenHash: 'h', linkExpiresAt: 2e9 },
        new Date(now),
      );
    world.clock.t += MINUTE;
    const deps = { ...world.deps, recountRecords: 2 };
    await sweepCampaigns(deps);
    const first = (await world.campaign(issue.id)).recount;
    expect(first).toMatchObject({ sent: 2 });
    // A worker counts one meanwhile: the partial recount is stale, and starts again.
    world.clock.t += 1_000;
    await world.campaigns.updateCampaign(issue.id, {
      expect: { statuses: ['sending'], run: issue.run },
      add: { sent: 1 },
      set: { progress_at: new Date(world.clock.now()).toISOString() },
    });
    world.clock.t += MINUTE;
    await sweepCampaigns(deps);
    const second = (await world.campaign(issue.id)).recount;
    expect(second).toMatchObject({ sent: 2 });
    expect(Date.parse(second?.started_at ?? '')).toBeGreaterThan(
      Date.parse(first?.started_at ?? ''),
    );
    for (let sweep = 0; sweep < 4; sweep += 1) {
      world.clock.t += MINUTE;
      await sweepCampaigns(deps);
    }
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent: 6 });
  });
});

/** Records the store's Queries of recipient records read from now on, as a count of calls. */
function countRecordReads(world: CampaignWorld): () => number {
  let calls = 0;
  const original = world.campaigns.countSettledFrom.bind(world.campaigns);
  const originalAll = world.campaigns.countSettled.bind(world.campaigns);
  world.campaigns.countSettledFrom = async (...args) => {
    calls += 1;
    return original(...args);
  };
  world.campaigns.countSettled = async (...args) => {
    calls += 1;
    return originalAll(...args);
  };
  return () => calls;
}

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
