/**
 * Several campaigns at once against DynamoDB Local (shared/operations/campaign/): one send
 * budget for the account, whatever the number of campaigns and workers ([campaign.budget]), and
 * a second send that either shares that rate or waits its turn, as the settings say
 * ([campaign.overlap]).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoSendBudget } from '../../shared/adapters/store/dynamo-send-budget.ts';
import { feedHorizon } from '../../shared/domain/campaign/feed.ts';
import type { ChunkMessage } from '../../shared/domain/campaign/work-messages.ts';
import {
  cancelNewsletter,
  pauseNewsletter,
  resumeNewsletter,
} from '../../shared/operations/campaign/control-campaign.ts';
import { sendChunk } from '../../shared/operations/campaign/send-recipients.ts';
import { sweepCampaigns } from '../../shared/operations/campaign/sweep-campaigns.ts';
import { type CampaignWorld, campaignWorld, linesOf, started } from '../support/campaign-world.ts';

/** Most mails in any second of these send times. */
function mostInOneSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i += 1) {
    while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= 1000) j += 1;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** The chunk messages queued for the workers, taken off the queue. */
function takeChunks(world: CampaignWorld): ChunkMessage[] {
  const chunks: ChunkMessage[] = [];
  for (let chunk = world.queues.takeSend(); chunk; chunk = world.queues.takeSend())
    if (!('kind' in chunk)) chunks.push(chunk);
  return chunks;
}

/** Two drafts to lists 1 and 2, with `count` readers on each list. */
async function twoIssues(world: CampaignWorld, count: number) {
  await world.subscribe(count, { lists: [1] }, 'first');
  await world.subscribe(count, { lists: [2] }, 'second');
  const first = await world.issue({ subject: 'First', lists: [1] });
  const second = await world.issue({ subject: 'Second', lists: [2] });
  return { first, second };
}

describe('[campaign.budget] all campaigns at once keep the account’s one rate', () => {
  it('two campaigns sent at once by two workers in two containers: together at most the rate in any second, and each gets its turn', async () => {
    const world = await campaignWorld({ campaign: { rate: 20 } });
    const { first, second } = await twoIssues(world, 60);
    await started(world, first.id);
    await started(world, second.id);
    while (world.queues.plans.length > 0) await world.planOne();
    const chunks = takeChunks(world);
    const of = (id: number) => chunks.filter((chunk) => chunk.newsletter_id === id);
    expect(of(first.id)).toHaveLength(1);
    expect(of(second.id)).toHaveLength(1);
    // Each worker a container of its own: its own slots, its own view of the budget.
    const worker = (chunk: ChunkMessage) =>
      sendChunk(
        {
          ...world.deps,
          slots: new Map(),
          budget: new DynamoSendBudget(world.table.client, world.table.name),
        },
        chunk,
        { workers: 2, owner: randomUUID(), deadline: world.clock.now() + 60_000, inFlight: 4 },
      );
    const outcomes = await Promise.all(chunks.map(worker));
    expect(outcomes.map((outcome) => outcome.sent)).toEqual([60, 60]);
    const times = world.ses.mails.map((mail) => mail.at);
    expect(times).toHaveLength(120);
    // One time line for both: never more than 20 in a second (each alone would take 20). How
    // much of the rate they keep together is the bench's to measure: on the virtual clock one
    // worker's pacing waits move time on while the other's DynamoDB calls are under way.
    expect(mostInOneSecond(times)).toBeLessThanOrEqual(20);
    // Both sent all along: the second campaign did not wait for the first.
    const subjects = world.ses.mails
      .slice(0, 40)
      .map((mail) => mail.subject)
      .sort();
    expect(new Set(subjects)).toEqual(new Set(['First', 'Second']));
  });
});

describe('[campaign.feed] a campaign keeps about half a minute of its chunks in the workers’ queue', () => {
  it('plans to the end at once but queues its chunks as the ones before are done, so a campaign started later gets its turn within that half minute', async () => {
    // At 5 a second half a minute is 2 chunks of 100: the horizon is its floor, 4 chunks.
    const world = await campaignWorld({ campaign: { rate: 5 } }, { plan: 50, chunk: 10 });
    expect(feedHorizon(5)).toBe(4);
    await world.subscribe(120, { lists: [1] }, 'big');
    await world.subscribe(10, { lists: [2] }, 'small');
    const big = await world.issue({ subject: 'Big', lists: [1] });
    await started(world, big.id);
    while (world.queues.plans.length > 0) await world.planOne();
    // Every page planned, the total known; only the horizon's 4 chunks are queued.
    expect(await world.campaign(big.id)).toMatchObject({
      plan_done: true,
      total: 120,
      fed_chunks: 4,
    });
    expect(world.queues.sends).toHaveLength(4);
    const small = await world.issue({ subject: 'Small', lists: [2] });
    await started(world, small.id);
    await world.drain();
    const subjects = world.ses.mails.map((mail) => mail.subject);
    // The small one's first mail went before the big one's 41st: after its 4 queued chunks.
    expect(subjects.indexOf('Small')).toBeLessThanOrEqual(40);
    expect(subjects.filter((subject) => subject === 'Big')).toHaveLength(120);
    expect(subjects.filter((subject) => subject === 'Small')).toHaveLength(10);
    expect([...world.ses.counts().values()].every((count) => count === 1)).toBe(true);
    expect(await world.campaign(big.id)).toMatchObject({
      status: 'sent',
      sent: 120,
      fed_chunks: 12,
      done_chunks: 12,
    });
  });
});

describe('[campaign.overlap] a second send shares the rate (the default) or waits its turn', () => {
  it('share: the second starts at once, both are at work', async () => {
    const world = await campaignWorld();
    const { first, second } = await twoIssues(world, 3);
    await started(world, first.id);
    const other = await started(world, second.id);
    expect(other.waiting_since).toBeUndefined();
    expect(world.queues.plans.map((message) => message.newsletter_id)).toEqual([
      first.id,
      second.id,
    ]);
    await world.drain();
    expect(world.ses.mails).toHaveLength(6);
    expect(await world.campaign(second.id)).toMatchObject({ status: 'sent', sent: 3 });
  });

  it('wait: the second is sending but queues nothing until the first ends, then goes, everyone once', async () => {
    const world = await campaignWorld({ campaign: { overlap: 'wait' } });
    const { first, second } = await twoIssues(world, 5);
    await started(world, first.id);
    const waiting = await started(world, second.id);
    expect(waiting).toMatchObject({ status: 'sending' });
    expect(waiting.waiting_since).toBe(new Date(world.clock.now()).toISOString());
    expect(world.queues.plans.map((message) => message.newsletter_id)).toEqual([first.id]);
    // Asking again does not jump the queue.
    await started(world, second.id);
    expect(world.queues.plans.map((message) => message.newsletter_id)).toEqual([first.id]);
    await world.drain();
    expect(await world.campaign(first.id)).toMatchObject({ status: 'sent', sent: 5 });
    const ended = await world.campaign(second.id);
    expect(ended).toMatchObject({ status: 'sent', sent: 5 });
    expect(ended.waiting_since).toBeUndefined();
    // Every mail of the first before any of the second.
    expect(world.ses.mails.map((mail) => mail.subject)).toEqual([
      ...Array(5).fill('First'),
      ...Array(5).fill('Second'),
    ]);
    expect(linesOf(world, 'campaign_turn').map((line) => line.fields)).toEqual([
      { newsletter_id: second.id, run: 1, waited_since: waiting.waiting_since },
    ]);
  });

  it('wait: a pause or a cancel of the one at work gives the next its turn at the next sweep; a resumed one waits behind it', async () => {
    const world = await campaignWorld({ campaign: { overlap: 'wait' } }, { chunk: 1 });
    const { first, second } = await twoIssues(world, 4);
    await started(world, first.id);
    await started(world, second.id);
    await world.planOne();
    await world.sendOne();
    await pauseNewsletter(world.deps, first.id);
    // The second's turn comes at the next sweep: its first page is queued.
    await sweepCampaigns(world.deps);
    expect((await world.campaign(second.id)).waiting_since).toBeUndefined();
    // The first, resumed while the second sends, waits behind it.
    const resumed = await resumeNewsletter(world.deps, first.id);
    expect(resumed).toMatchObject({ status: 'sending' });
    expect((await world.campaign(first.id)).waiting_since).toBeDefined();
    await world.drain();
    expect(await world.campaign(second.id)).toMatchObject({ status: 'sent', sent: 4 });
    expect(await world.campaign(first.id)).toMatchObject({ status: 'sent', sent: 4 });
    expect(world.ses.counts().size).toBe(8);
    expect([...world.ses.counts().values()].every((count) => count === 1)).toBe(true);
    const subjects = world.ses.mails.map((mail) => mail.subject);
    // One of the first went before the pause; then all of the second; then the first's rest.
    expect(subjects).toEqual(['First', ...Array(4).fill('Second'), ...Array(3).fill('First')]);

    // A third waiting behind a fourth that is cancelled goes at once.
    const third = await world.issue({ subject: 'Third', lists: [1] });
    const fourth = await world.issue({ subject: 'Fourth', lists: [2] });
    await started(world, fourth.id);
    expect((await started(world, third.id)).waiting_since).toBeDefined();
    await cancelNewsletter(world.deps, fourth.id);
    await sweepCampaigns(world.deps);
    expect((await world.campaign(third.id)).waiting_since).toBeUndefined();
    await world.drain();
    expect(await world.campaign(third.id)).toMatchObject({ status: 'sent', sent: 4 });
  });

  it('the sweeper leaves one waiting alone (no stall, no repair), and starts every one waiting once the settings say share', async () => {
    const world = await campaignWorld({ campaign: { overlap: 'wait' } });
    const { first, second } = await twoIssues(world, 2);
    await started(world, first.id);
    await started(world, second.id);
    while (world.queues.plans.length > 0) await world.planOne();
    world.clock.t += 11 * 60_000;
    world.queues.plans.length = 0;
    const sweep = await sweepCampaigns(world.deps);
    // The first is stalled (its work was never sent) and repaired; the second only waits.
    expect(sweep).toMatchObject({ sending: 2, stalled: 1, repaired: 1 });
    expect(world.queues.plans).toEqual([
      { kind: 'walk', newsletter_id: first.id, run: 1, walk: 1, after: 0 },
    ]);
    expect((await world.campaign(second.id)).waiting_since).toBeDefined();
    world.current.settings = {
      ...world.current.settings,
      campaign: { ...world.current.settings.campaign, overlap: 'share' },
    };
    await sweepCampaigns(world.deps);
    expect((await world.campaign(second.id)).waiting_since).toBeUndefined();
    await world.drain();
    expect(world.ses.counts().size).toBe(4);
    expect(await world.campaign(second.id)).toMatchObject({ status: 'sent' });
  });
});
