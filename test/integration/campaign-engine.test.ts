/**
 * The campaign engine's operations against DynamoDB Local (shared/operations/campaign/): who
 * gets an issue, that nobody is skipped and nobody mailed twice whatever the queue or a worker
 * does, pacing, throttles, failures, pause, resume, cancel and the sweeper.
 */
import { describe, expect, it } from 'vitest';
import { DynamoSubscriberDirectory } from '../../shared/adapters/store/dynamo-subscriber-directory.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import {
  cancelNewsletter,
  pauseNewsletter,
  resumeNewsletter,
  sendNewsletter,
} from '../../shared/operations/campaign/control-campaign.ts';
import { planPage, walkPage } from '../../shared/operations/campaign/plan-recipients.ts';
import { sendChunk } from '../../shared/operations/campaign/send-recipients.ts';
import { sweepCampaigns } from '../../shared/operations/campaign/sweep-campaigns.ts';
import { unsubscribeByLink } from '../../shared/operations/token-links.ts';
import { saveV2Subscriber } from '../../shared/operations/v2/v2-subscribers.ts';
import {
  type CampaignWorld,
  campaignWorld,
  deadClaim,
  recipientStates,
  started,
} from '../support/campaign-world.ts';

/** Every recipient record of an issue by state. */
const states = (world: CampaignWorld, id: number) => recipientStates(world, id);

/** The subscriber ids of the recipients waiting in the workers' queue, in queue order. */
const queuedIds = (world: CampaignWorld): number[] =>
  world.queues.sends.flatMap(({ chunk }) =>
    'kind' in chunk ? [] : chunk.recipients.map((recipient) => recipient.id),
  );

/** Deletes a subscriber as `delete_subscriber` would. */
async function deleteSubscriber(world: CampaignWorld, email: string): Promise<void> {
  const record = await world.store.getSubscriber(email);
  if (!record) throw new Error(`no subscriber ${email}`);
  await world.store.deleteSubscriber(record);
}

describe('[campaign.plan] the C subscribers of the issue’s lists when the send starts, once each', () => {
  it('mails every C subscriber of the lists once, also those on several lists, over many pages', async () => {
    const world = await campaignWorld({}, { plan: 7 });
    const one = await world.subscribe(20, { lists: [1] });
    const both = await world.subscribe(5, { lists: [1, 4] });
    const four = await world.subscribe(3, { lists: [4] });
    await world.subscribe(4, { lists: [3] }, 'other');
    await world.subscribe(2, { lists: [1], status: 'S' }, 'pending');
    await world.subscribe(2, { lists: [1], status: 'U' }, 'left');
    await world.subscribe(1, { lists: [1], status: 'B' }, 'bounced');
    const issue = await world.issue({ lists: [1, 4] });
    await started(world, issue.id);
    await world.drain();
    const counts = world.ses.counts();
    expect([...counts.keys()].sort()).toEqual(
      [...one, ...both, ...four].map((s) => s.email).sort(),
    );
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    const done = await world.campaign(issue.id);
    expect(done).toMatchObject({ status: 'sent', total: 28, sent: 28, skipped: 0, failed: 0 });
    expect(done.sent_at).not.toBeNull();
    expect(await states(world, issue.id)).toMatchObject({ sent: 28, pending: 0 });
  });

  it('leaves out who subscribed after the send started', async () => {
    const world = await campaignWorld();
    await world.subscribe(3);
    const issue = await world.issue();
    await started(world, issue.id);
    const late = await world.subscribe(2, {}, 'late');
    await world.drain();
    expect(world.ses.mails.map((mail) => mail.to)).not.toContain(late[0]?.email);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', total: 3, sent: 3 });
  });

  it('a run with no recipient ends at once', async () => {
    const world = await campaignWorld();
    const issue = await world.issue({ lists: [4] });
    await started(world, issue.id);
    await world.drain();
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', total: 0, sent: 0 });
  });

  it('every mail carries the unsubscribe headers’ link, the tags and the personalisation', async () => {
    const world = await campaignWorld();
    const [ada] = await world.subscribe(1, { name: 'Ada' });
    const issue = await world.issue();
    await started(world, issue.id);
    await world.drain();
    const [mail] = world.ses.mails;
    expect(mail?.to).toBe(ada?.email);
    expect(mail?.unsubscribeUrl).toMatch(
      new RegExp(
        `^https://news\\.example\\.com/api/newsletter/v1/subscription/unsubscribe\\?token=${issue.id}\\.${ada?.id}\\.`,
      ),
    );
    expect(mail?.html).toContain('Hello Ada');
    expect(mail?.html).toContain(mail?.unsubscribeUrl.replaceAll('&', '&amp;'));
    expect(mail?.tags).toEqual({
      newsletter: String(issue.id),
      run: '1',
      subscriber: String(ada?.id),
      // [engagement.mail-token] the mail's own, for counting opens without storing who.
      mail: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
  });
});

describe('[campaign.recheck] whoever left before their turn gets nothing and is counted as skipped', () => {
  it('skips the unsubscribed, the deleted, the bounced, the one off the lists and the one who confirmed after the start', async () => {
    const world = await campaignWorld();
    const people = await world.subscribe(6);
    const issue = await world.issue();
    await started(world, issue.id);
    while (world.queues.plans.length > 0) await world.planOne();
    const [left, gone, bounced, moved, reconfirmed, stays] = people;
    if (!left || !gone || !bounced || !moved || !reconfirmed || !stays) throw new Error('six');
    const change = async (email: string, change: object) => {
      const current = await world.store.getSubscriber(email);
      if (!current) throw new Error(email);
      await world.store.replaceSubscriber(
        { ...current, ...change, version: current.version + 1 },
        current,
      );
    };
    await change(left.email, { status: 'U' });
    const deleted = await world.store.getSubscriber(gone.email);
    if (deleted) await world.store.deleteSubscriber(deleted);
    await change(bounced.email, { status: 'B' });
    await change(moved.email, { lists: [4] });
    await change(reconfirmed.email, {
      confirmed_at: new Date(world.clock.now() + 1000).toISOString(),
    });
    await world.drain();
    expect(world.ses.mails.map((mail) => mail.to)).toEqual([stays.email]);
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'sent',
      total: 6,
      sent: 1,
      skipped: 5,
    });
    const reasons = await Promise.all(
      people.map(
        async (person) => (await world.campaigns.getRecipient(spread(issue.id), person.id))?.reason,
      ),
    );
    expect(reasons).toEqual([
      'unsubscribed',
      'deleted',
      'bounced',
      'off_lists',
      'confirmed_after_start',
      undefined,
    ]);
  });
});

/** Where a new run's records are. */
const spread = (newsletterId: number) => ({ newsletterId, legacy: false });

describe('[campaign.recheck] a subscriber is found by id when their turn comes', () => {
  it('one who changed address (v2 PUT /subscribers/{id}) between planning and sending gets the issue at the new address, once; one whose address went to someone else is not mailed for them', async () => {
    const world = await campaignWorld();
    const [mover, stays, gone] = await world.subscribe(3);
    if (!mover || !stays || !gone) throw new Error('three');
    const issue = await world.issue();
    await started(world, issue.id);
    while (world.queues.plans.length > 0) await world.planOne();
    // The chunk is queued with the addresses planning read; then the address changes.
    const directory = new DynamoSubscriberDirectory(world.table.client, world.table.name);
    const v2 = { ...world.deps, store: world.store, directory };
    const saved = await saveV2Subscriber(
      v2,
      { email: 'moved@example.org' },
      { trusted: true },
      String(mover.id),
    );
    expect(isNewsletterError(saved)).toBe(false);
    // `gone` is deleted and a newcomer takes the address: not the planned recipient.
    await deleteSubscriber(world, gone.email);
    await world.subscribe(1, {}, 'newcomer');
    const newcomer = await world.store.getSubscriber('newcomer4@example.com');
    if (!newcomer) throw new Error('newcomer');
    await world.store.replaceSubscriber(
      { ...newcomer, email: gone.email, version: newcomer.version + 1 },
      newcomer,
    );
    await world.drain();
    expect(world.ses.mails.map((mail) => mail.to).sort()).toEqual(
      ['moved@example.org', stays.email].sort(),
    );
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'sent',
      total: 3,
      sent: 2,
      skipped: 1,
    });
    expect(await world.campaigns.getRecipient(spread(issue.id), mover.id)).toMatchObject({
      state: 'sent',
    });
    expect((await world.campaigns.getRecipient(spread(issue.id), gone.id))?.reason).toBe('deleted');
  });
});

describe('[campaign.feedback-cost] only a mail whose delivery matters reports it', () => {
  it('asks SES for the delivery event only for a recipient with soft bounces counted', async () => {
    const world = await campaignWorld();
    const plain = await world.subscribe(3);
    const [bouncing] = await world.subscribe(1, { transient_bounces: 2 }, 'bouncing');
    const issue = await world.issue();
    await started(world, issue.id);
    await world.drain();
    const reported = new Map(world.ses.mails.map((mail) => [mail.to, mail.reportDelivery]));
    expect(reported.get(bouncing?.email ?? '')).toBe(true);
    for (const person of plain) expect(reported.get(person.email)).toBe(false);
  });
});

describe('[campaign.claim] never skip anyone, at most the mails in flight twice', () => {
  it('a chunk delivered twice mails each recipient once', async () => {
    const world = await campaignWorld();
    await world.subscribe(30);
    const issue = await world.issue();
    await started(world, issue.id);
    while (world.queues.plans.length > 0) await world.planOne();
    world.queues.sends.push(...world.queues.sends.map((entry) => ({ ...entry })));
    await world.drain();
    expect([...world.ses.counts().values()].every((count) => count === 1)).toBe(true);
    expect(world.ses.mails).toHaveLength(30);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent: 30, total: 30 });
  });

  it('a mail SES took whose record DynamoDB refuses at first is recorded sent, never failed, and mailed once', async () => {
    const world = await campaignWorld();
    await world.subscribe(12);
    const issue = await world.issue();
    await started(world, issue.id);
    // The outcome writes of the first three mails are refused twice each, past the SDK's retries.
    const settle = world.campaigns.recordOutcome.bind(world.campaigns);
    const refused = new Map<number, number>();
    world.campaigns.recordOutcome = async (id, run, subscriberId, outcome, at) => {
      const times = refused.get(subscriberId) ?? 0;
      if (outcome.state === 'sent' && (refused.size < 3 || times > 0) && times < 2) {
        refused.set(subscriberId, times + 1);
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ProvisionedThroughputExceededException',
        });
      }
      return settle(id, run, subscriberId, outcome, at);
    };
    await world.drain();
    expect([...refused.values()]).toEqual([2, 2, 2]);
    expect(world.ses.mails).toHaveLength(12);
    expect([...world.ses.counts().values()].every((count) => count === 1)).toBe(true);
    expect(await states(world, issue.id)).toMatchObject({ sent: 12, failed: 0 });
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent: 12, failed: 0 });
  });

  it('a worker that died holding claims: its chunk, redelivered once the leases lapse, reaches everyone, the dead one’s in-flight recipients again', async () => {
    const world = await campaignWorld();
    const people = await world.subscribe(40);
    const issue = await world.issue();
    await started(world, issue.id);
    while (world.queues.plans.length > 0) await world.planOne();
    const chunk = world.queues.sends[0]?.chunk;
    if (!chunk || 'kind' in chunk) throw new Error('no chunk');
    // The dead worker: its chunk claimed, 5 recipients sent and recorded but not yet counted,
    // 3 in flight (SES may or may not have taken them), then the process was killed.
    const now = world.clock.now();
    expect(
      await world.campaigns.claimChunk(issue.id, chunk.run, chunk.chunk, deadClaim(now)),
    ).toMatchObject({ claimed: true });
    for (const person of people.slice(0, 5))
      await world.campaigns.recordOutcome(
        issue.id,
        chunk.run,
        person.id,
        { state: 'sent', messageId: 'm', tokenHash: 'h', linkExpiresAt: 2e9 },
        new Date(now),
      );
    // Delivered again while the lease holds: the work waits for it to lapse, then takes the
    // chunk over, and mails everyone it has no record of, the three in flight included.
    const delivered = await world.sendOne();
    expect(delivered).toMatchObject({ sent: 0, stopped: 'held' });
    expect(world.ses.mails).toHaveLength(0);
    world.clock.t += 120_000;
    await world.drain();
    const counts = world.ses.counts();
    expect(counts.size).toBe(35);
    for (const person of people.slice(0, 5)) expect(counts.has(person.email)).toBe(false);
    for (const person of people.slice(5)) expect(counts.get(person.email)).toBe(1);
    expect(await states(world, issue.id)).toMatchObject({ pending: 0, sent: 40 });
    // The five the dead worker never counted: the run stays open until the sweeper recounts.
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sending', sent: 35 });
    await sweepAfterRepairDelay(world);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent: 40, total: 40 });
  });
});

async function sweepAfterRepairDelay(world: CampaignWorld): Promise<void> {
  world.clock.t += 7 * 60_000;
  await sweepCampaigns(world.deps);
  await world.drain();
}

describe('[campaign.throttle] a throttle slows the workers and puts the unsent back, never drops a mail', () => {
  it('requeues the rest with a growing delay, and everyone gets the issue once', async () => {
    const world = await campaignWorld();
    await world.subscribe(50);
    const issue = await world.issue();
    await started(world, issue.id);
    let sends = 0;
    world.ses.failWith = () => {
      sends += 1;
      return sends % 7 === 0 ? 'throttled' : undefined;
    };
    await world.drain();
    expect(world.ses.counts().size).toBe(50);
    expect([...world.ses.counts().values()].every((count) => count === 1)).toBe(true);
    expect(world.metrics.counts.CampaignThrottles).toBeGreaterThan(0);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent: 50, failed: 0 });
  });

  it('SES away for a while: nothing lost, and the failures in a row pause the campaign with an alarm metric', async () => {
    const world = await campaignWorld({ campaign: { failure_limit: 3 } });
    await world.subscribe(20);
    const issue = await world.issue();
    await started(world, issue.id);
    world.ses.failWith = () => 'unavailable';
    await world.drain();
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'paused',
      pause_reason: 'failures',
    });
    expect(world.metrics.counts.CampaignsAutoPaused).toBe(1);
    world.ses.failWith = undefined;
    const resumed = await resumeNewsletter(world.deps, issue.id);
    expect(isNewsletterError(resumed)).toBe(false);
    await world.drain();
    expect(world.ses.counts().size).toBe(20);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent: 20, failed: 0 });
  });
});

describe('[campaign.pause] pause stops the workers; resume finishes the send', () => {
  it('[campaign.resume] sent equals the recipients minus the skipped, each once, after a pause in the middle', async () => {
    const world = await campaignWorld({}, { plan: 10, walk: 9, chunk: 1 });
    await world.subscribe(45);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    await world.sendOne();
    const paused = await pauseNewsletter(world.deps, issue.id);
    expect(paused).toMatchObject({ status: 'paused' });
    await world.drain();
    const before = world.ses.mails.length;
    expect(before).toBeLessThan(45);
    expect(await pauseNewsletter(world.deps, issue.id)).toMatchObject({ status: 'paused' });
    await resumeNewsletter(world.deps, issue.id);
    await world.drain();
    expect(world.ses.counts().size).toBe(45);
    expect([...world.ses.counts().values()].every((count) => count === 1)).toBe(true);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', total: 45, sent: 45 });
  });

  it('a worker notices a pause within a second and stops starting sends', async () => {
    const world = await campaignWorld({ campaign: { rate: 10 } });
    await world.subscribe(50);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    // Paused by someone else while this worker paces through its chunk at 10 a second.
    const pauseAt = world.clock.now() + 2_000;
    let pausedAt: number | undefined;
    world.ses.failWith = () => {
      if (pausedAt === undefined && world.clock.now() >= pauseAt) {
        pausedAt = world.clock.now();
        void pauseNewsletter(world.deps, issue.id);
      }
      return undefined;
    };
    const outcome = await world.sendOne({ inFlight: 1 });
    expect(outcome?.stopped).toBe('paused');
    const last = Math.max(...world.ses.mails.map((mail) => mail.at));
    expect(last - (pausedAt ?? 0)).toBeLessThanOrEqual(1_500);
  });
});

describe('[campaign.pause] a chunk that arrives after a pause, or from another run, sends nothing', () => {
  it('answers not_sending, mails nobody and leaves every recipient pending', async () => {
    const world = await campaignWorld();
    await world.subscribe(5);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    await pauseNewsletter(world.deps, issue.id);
    expect(await world.sendOne()).toEqual({
      sent: 0,
      skipped: 0,
      failed: 0,
      requeued: 0,
      stopped: 'not_sending',
    });
    expect(world.ses.mails).toHaveLength(0);
    expect((await states(world, issue.id)).pending).toBe(5);
  });

  it('a chunk of another run of a sending campaign is not this run’s work', async () => {
    const world = await campaignWorld();
    await world.subscribe(5);
    const issue = await world.issue();
    const campaign = await started(world, issue.id);
    await world.planOne();
    const chunk = world.queues.takeSend();
    if (!chunk || 'kind' in chunk) throw new Error('expected a chunk of recipients');
    const invocation = {
      workers: 1,
      owner: 'w',
      deadline: world.clock.now() + 60_000,
      inFlight: 4,
    };
    const stale = await sendChunk(world.deps, { ...chunk, run: campaign.run + 1 }, invocation);
    expect(stale).toMatchObject({ sent: 0, stopped: 'not_sending' });
    expect(world.ses.mails).toHaveLength(0);
    // The same chunk with its own run is sent.
    expect(await sendChunk(world.deps, chunk, invocation)).toMatchObject({ sent: 5 });
  });
});

describe('[campaign.claim] a worker stops before its invocation runs out of time', () => {
  it('starts no send in the last 6 s and puts the rest back at once, no throttle round counted', async () => {
    const world = await campaignWorld({ campaign: { rate: 10 } });
    await world.subscribe(50);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    const chunk = world.queues.takeSend();
    if (!chunk || 'kind' in chunk) throw new Error('expected a chunk of recipients');
    const start = world.clock.now();
    // 8 s left: about 2 s of sending at 10 a second before the 6 s margin.
    const invocation = { workers: 1, owner: 'w', deadline: start + 8_000, inFlight: 1 };
    const outcome = await sendChunk(world.deps, chunk, invocation);
    expect(outcome.stopped).toBe('deadline');
    expect(outcome.sent).toBeGreaterThan(0);
    expect(outcome.sent).toBeLessThan(50);
    expect(outcome.requeued).toBe(50 - outcome.sent);
    const last = Math.max(...world.ses.mails.map((mail) => mail.at));
    expect(last).toBeLessThanOrEqual(invocation.deadline - 6_000);
    expect(world.queues.sends).toHaveLength(1);
    const [requeued] = world.queues.sends;
    expect(requeued?.visibleAt).toBe(world.clock.now());
    expect(requeued?.chunk).toMatchObject({ throttled: chunk.throttled });
    await world.drain();
    expect([...world.ses.counts().values()]).toEqual(Array(50).fill(1));
  });
});

describe('[ops.metrics] a campaign worker counts what it sent, skipped and failed', () => {
  it('adds each invocation’s sent, skipped and failed mails to the campaign metrics', async () => {
    const world = await campaignWorld();
    const people = await world.subscribe(6);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    // One leaves before their turn (skipped), one address SES rejects (failed).
    const [leaving, rejected] = people;
    if (!leaving || !rejected) throw new Error('expected subscribers');
    await world.store.replaceSubscriber({ ...leaving, status: 'U' }, leaving);
    world.ses.failWith = (mail) => (mail.to === rejected.email ? 'rejected' : undefined);
    await world.sendOne();
    expect(world.metrics.counts).toMatchObject({
      CampaignMailsSent: 4,
      CampaignSkips: 1,
      CampaignFailures: 1,
    });
  });
});

describe('[campaign.cancel] cancel stops the send for good', () => {
  it('nothing more goes out; a cancelled issue cannot be resumed or sent', async () => {
    const world = await campaignWorld({}, { plan: 10 });
    await world.subscribe(30);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    await world.sendOne();
    const sent = world.ses.mails.length;
    expect(await cancelNewsletter(world.deps, issue.id)).toMatchObject({ status: 'cancelled' });
    await world.drain();
    expect(world.ses.mails).toHaveLength(sent);
    expect(isNewsletterError(await resumeNewsletter(world.deps, issue.id))).toBe(true);
    const again = await sendNewsletter(world.deps, { id: issue.id });
    expect(again).toMatchObject({ code: 'invalid_state', status: 409 });
  });
});

describe('[campaign.lifecycle] states change only through the lifecycle, by conditional writes', () => {
  it('an illegal transition is a clear error and changes nothing', async () => {
    const world = await campaignWorld();
    const issue = await world.issue();
    expect(await pauseNewsletter(world.deps, issue.id)).toMatchObject({ code: 'invalid_state' });
    expect(await cancelNewsletter(world.deps, issue.id)).toMatchObject({ code: 'invalid_state' });
    expect(await sendNewsletter(world.deps, { id: 999 })).toMatchObject({ code: 'not_found' });
    expect((await world.campaign(issue.id)).status).toBe('draft');
    await started(world, issue.id);
    await world.drain();
    expect(await sendNewsletter(world.deps, { id: issue.id })).toMatchObject({
      code: 'invalid_state',
    });
  });

  it('a draft without content cannot be sent', async () => {
    const world = await campaignWorld();
    await world.deps.campaigns.createIssue(
      { id: 77, subject: 'Empty', created: new Date().toISOString(), private: false, lists: [1] },
      undefined,
    );
    expect(await sendNewsletter(world.deps, { id: 77 })).toMatchObject({ code: 'invalid_state' });
  });

  it('two racing sends start one run', async () => {
    const world = await campaignWorld();
    await world.subscribe(5);
    const issue = await world.issue();
    const results = await Promise.all([
      sendNewsletter(world.deps, { id: issue.id }),
      sendNewsletter(world.deps, { id: issue.id }),
    ]);
    expect((await world.campaign(issue.id)).run).toBe(1);
    await world.drain();
    expect(world.ses.mails).toHaveLength(5);
    expect(results.filter((result) => !isNewsletterError(result)).length).toBeGreaterThanOrEqual(1);
  });
});

describe('[campaign.pacing] a worker sends no faster than its share of the rate', () => {
  it('one worker at 20 a second: no second holds more than 20 sends, and it keeps at least 90% of the rate', async () => {
    const world = await campaignWorld({ campaign: { rate: 20 } });
    await world.subscribe(100);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.drain({ inFlight: 1 });
    const times = world.ses.mails.map((mail) => mail.at).sort((a, b) => a - b);
    let most = 0;
    for (let i = 0, j = 0; i < times.length; i += 1) {
      while ((times[i] ?? 0) - (times[j] ?? 0) >= 1000) j += 1;
      most = Math.max(most, i - j + 1);
    }
    expect(most).toBeLessThanOrEqual(20);
    const span = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
    expect((times.length - 1) / span).toBeGreaterThanOrEqual(18);
  });

  it('the planner takes 80% of SES’s maximum rate when the settings set none', async () => {
    const world = await campaignWorld();
    world.ses.rate = 50;
    await world.subscribe(1);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    expect((await world.campaign(issue.id)).rate).toBe(40);
  });
});

describe('[campaign.sweep] the sweeper finds stalled campaigns and repairs lost work', () => {
  it('queues again recipients whose messages were lost, recounts and ends the run', async () => {
    const world = await campaignWorld();
    await world.subscribe(25);
    const issue = await world.issue();
    await started(world, issue.id);
    while (world.queues.plans.length > 0) await world.planOne();
    world.queues.sends.length = 0;
    world.clock.t += 11 * 60_000;
    const sweep = await sweepCampaigns(world.deps);
    expect(sweep).toMatchObject({ sending: 1, stalled: 1, repaired: 1 });
    expect(world.metrics.counts.StalledCampaigns).toBe(1);
    await world.drain();
    expect(world.ses.counts().size).toBe(25);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent: 25 });
  });

  it('leaves a healthy campaign alone', async () => {
    const world = await campaignWorld();
    await world.subscribe(3);
    const issue = await world.issue();
    await started(world, issue.id);
    expect(await sweepCampaigns(world.deps)).toMatchObject({ sending: 1, stalled: 0, repaired: 0 });
    expect(world.queues.plans).toHaveLength(1);
  });
});

describe('[campaign.unsubscribe-link] the link in a campaign mail unsubscribes, once, and only its own person', () => {
  it('one-click from the mail makes the subscriber U and marks the issue’s record', async () => {
    const world = await campaignWorld();
    const [ada, bo] = await world.subscribe(2);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.drain();
    const mail = world.ses.mails.find((each) => each.to === ada?.email);
    const token = new URL(mail?.unsubscribeUrl ?? 'https://x').searchParams.get('token');
    const deps = { ...world.deps, store: world.store };
    expect(await unsubscribeByLink(deps, token)).toBe('unsubscribed');
    expect((await world.store.getSubscriber(ada?.email ?? ''))?.status).toBe('U');
    expect((await world.store.getSubscriber(bo?.email ?? ''))?.status).toBe('C');
    const record = await world.campaigns.getRecipient(spread(issue.id), ada?.id ?? 0);
    expect(record?.unsubscribed_at).toBeDefined();
    expect(JSON.stringify(record)).not.toContain(token?.split('.').at(-1));
    // A tampered secret, another person's ids, an expired link: nothing.
    const [nid, sid, run, first, secret] = (token ?? '').split('.');
    expect(await unsubscribeByLink(deps, `${nid}.${bo?.id}.${run}.${first}.${secret}`)).toBe(
      'invalid',
    );
    expect(await unsubscribeByLink(deps, `${nid}.${sid}.${run}.${first}.${'A'.repeat(43)}`)).toBe(
      'invalid',
    );
    // Without its chunk it reads as a link from before chunks, whose record is elsewhere.
    expect(await unsubscribeByLink(deps, `${nid}.${sid}.${secret}`)).toBe('invalid');
    world.clock.t += 366 * 86_400_000;
    expect(await unsubscribeByLink(deps, token)).toBe('invalid');
  });
});

describe('[campaign.plan] each page is planned once, whatever becomes of its message', () => {
  it('a page delivered again after its commit queues its recipients and the next page once more, and counts nobody twice', async () => {
    const world = await campaignWorld({}, { plan: 3 });
    const people = await world.subscribe(7);
    const ids = people.map((person) => person.id);
    const issue = await world.issue();
    await started(world, issue.id);
    const firstPage = world.queues.plans[0];
    if (firstPage?.kind !== 'plan') throw new Error('expected the first page');
    // The first delivery dies after its conditional write, before it queues anything.
    const send = world.queues.send.bind(world.queues);
    world.queues.send = async () => {
      throw new Error('the invocation died');
    };
    await expect(world.planOne()).rejects.toThrow('the invocation died');
    world.queues.send = send;
    expect(world.queues.plans).toHaveLength(0);
    expect(await world.campaign(issue.id)).toMatchObject({ plan_page: 1, total: 3 });

    expect(await planPage(world.deps, firstPage)).toBe('already_planned');
    expect(queuedIds(world)).toEqual(ids.slice(0, 3));
    expect(world.queues.plans).toEqual([{ ...firstPage, page: 1, after: ids[2] }]);
    expect(await world.campaign(issue.id)).toMatchObject({ plan_page: 1, total: 3 });

    const outcomes = [await world.planOne()];
    const lastPage = world.queues.plans[0];
    outcomes.push(await world.planOne());
    expect(outcomes).toEqual(['planned', 'planned_last']);
    expect(queuedIds(world)).toEqual(ids);
    // The first page again, now more than one page behind: the next page's delivery shows
    // that its first delivery queued everything, so nothing is queued again.
    expect(await planPage(world.deps, firstPage)).toBe('already_planned');
    expect(queuedIds(world)).toEqual(ids);
    // The last page again: its recipient once more, and no page after it.
    if (lastPage?.kind !== 'plan') throw new Error('expected the last page');
    expect(await planPage(world.deps, lastPage)).toBe('already_planned');
    expect(queuedIds(world)).toEqual([...ids, ids[6]]);
    expect(world.queues.plans).toHaveLength(0);

    await world.drain();
    expect([...world.ses.counts().values()]).toEqual(Array(7).fill(1));
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', total: 7, sent: 7 });
  });

  it('a page whose commit a pause refused queues nothing, and the resume plans it again', async () => {
    const world = await campaignWorld();
    await world.subscribe(4);
    const issue = await world.issue();
    await started(world, issue.id);
    // Paused between the page's planned chunks and its conditional write.
    const put = world.campaigns.putChunks.bind(world.campaigns);
    world.campaigns.putChunks = async (...args: Parameters<typeof put>) => {
      await put(...args);
      await pauseNewsletter(world.deps, issue.id);
    };
    expect(await world.planOne()).toBe('not_sending');
    world.campaigns.putChunks = put;
    expect(world.queues.sends).toHaveLength(0);
    expect(world.queues.plans).toHaveLength(0);
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'paused',
      plan_page: 0,
      total: 0,
    });

    await resumeNewsletter(world.deps, issue.id);
    await world.drain();
    expect([...world.ses.counts().values()]).toEqual([1, 1, 1, 1]);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', total: 4, sent: 4 });
  });

  it('a page message of a campaign no longer sending, of another run, of an unknown issue or for a page not reached yet plans nobody', async () => {
    const world = await campaignWorld();
    await world.subscribe(3);
    const issue = await world.issue();
    await started(world, issue.id);
    const page = world.queues.plans.shift();
    if (page?.kind !== 'plan') throw new Error('expected the first page');
    const nothingPlanned = async () => {
      expect(await states(world, issue.id)).toMatchObject({ pending: 0 });
      expect(world.queues.sends).toHaveLength(0);
      expect(world.queues.plans).toHaveLength(0);
    };

    expect(await planPage(world.deps, { ...page, page: 2, after: 2 })).toBe('already_planned');
    await nothingPlanned();
    expect(await planPage(world.deps, { ...page, run: page.run + 1 })).toBe('not_sending');
    await nothingPlanned();
    expect(await planPage(world.deps, { ...page, newsletter_id: 999 })).toBe('not_sending');
    await cancelNewsletter(world.deps, issue.id);
    expect(await planPage(world.deps, page)).toBe('not_sending');
    await nothingPlanned();
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'cancelled', total: 0 });
  });

  it('a send to the new reaches only the C subscribers of its lists with no record of the issue yet', async () => {
    const world = await campaignWorld();
    const first = await world.subscribe(3);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.drain();
    const late = await world.subscribe(2, {}, 'late');
    const again = await sendNewsletter(world.deps, { id: issue.id, newOnly: true });
    expect(again).toMatchObject({ status: 'sending', run: 2, new_only: true });
    await world.drain();
    const counts = world.ses.counts();
    for (const person of [...first, ...late]) expect(counts.get(person.email)).toBe(1);
    expect(world.ses.mails).toHaveLength(5);
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'sent',
      run: 2,
      total: 5,
      sent: 5,
    });
  });

  it('without page sizes of its own (as in the Lambda) it plans, finishes a committed page and walks', async () => {
    const world = await campaignWorld();
    const people = await world.subscribe(3);
    const ids = people.map((person) => person.id);
    const { pageSizes: _pageSizes, ...deps } = world.deps;
    const issue = await world.issue();
    await started(world, issue.id);
    const page = world.queues.plans.shift();
    if (page?.kind !== 'plan') throw new Error('expected the first page');
    expect(await planPage(deps, page)).toBe('planned_last');
    expect(await planPage(deps, page)).toBe('already_planned');
    await resumeNewsletter(deps, issue.id);
    const walk = world.queues.plans.shift();
    if (walk?.kind !== 'walk') throw new Error('expected a walk');
    expect(await walkPage(deps, walk)).toBe('walked_last');
    expect(queuedIds(world)).toEqual([...ids, ...ids, ...ids]);
    await world.drain();
    expect([...world.ses.counts().values()]).toEqual([1, 1, 1]);
  });
});

describe('[campaign.rate] SES’s quota is read when a run’s planning starts and at each resume', () => {
  it('the first page of a run, a send to the new’s included, reads it; the later pages keep the rate', async () => {
    const world = await campaignWorld({}, { plan: 2 });
    world.ses.rate = 50;
    await world.subscribe(3);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    expect((await world.campaign(issue.id)).rate).toBe(40);
    world.ses.rate = 100;
    await world.drain();
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', total: 3, rate: 40 });

    await world.subscribe(1, {}, 'late');
    await sendNewsletter(world.deps, { id: issue.id, newOnly: true });
    await world.planOne();
    expect((await world.campaign(issue.id)).rate).toBe(80);
  });

  it('a resume reads it again, once, for the whole walk', async () => {
    const world = await campaignWorld({}, { walk: 2, chunk: 1 });
    world.ses.rate = 50;
    await world.subscribe(5);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    await pauseNewsletter(world.deps, issue.id);
    // The workers find it paused and leave everyone pending.
    await world.drain();
    world.ses.rate = 25;
    await resumeNewsletter(world.deps, issue.id);
    expect(await world.planOne()).toBe('walked');
    expect((await world.campaign(issue.id)).rate).toBe(20);
    world.ses.rate = 100;
    await world.drain();
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent: 5, rate: 20 });
  });
});

/** Handles the walk messages queued, each with the `after` it started from. */
async function walkAll(world: CampaignWorld): Promise<[string | undefined, number][]> {
  const walked: [string | undefined, number][] = [];
  while (world.queues.plans.length > 0) {
    const next = world.queues.plans[0];
    if (next?.kind !== 'walk') throw new Error(`expected a walk, not ${next?.kind}`);
    walked.push([await world.planOne(), next.after]);
  }
  return walked;
}

/** A run planned in one page whose queued work was then lost, and resumed: a walk is queued. */
async function lostAndResumed(world: CampaignWorld): Promise<number> {
  const issue = await world.issue();
  await started(world, issue.id);
  await world.planOne();
  world.queues.sends.length = 0;
  await resumeNewsletter(world.deps, issue.id);
  return issue.id;
}

describe('[campaign.resume] a walk queues everyone still unsent, a page of records at a time, up to the planner’s cursor', () => {
  it('each walk message starts after the last record the one before read, and the walk ends at the cursor', async () => {
    const world = await campaignWorld({}, { walk: 3, chunk: 1 });
    const people = await world.subscribe(5);
    // Read by the planner, so the cursor, but no recipient.
    await world.subscribe(1, { status: 'U' }, 'left');
    const id = await lostAndResumed(world);
    expect(await walkAll(world)).toEqual([
      ['walked', 0],
      ['walked_last', people[2]?.id],
    ]);
    expect(queuedIds(world)).toEqual(people.map((person) => person.id));
    await world.drain();
    expect([...world.ses.counts().values()]).toEqual(Array(5).fill(1));
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 5 });
  });

  it('a walk whose last full page ends before the cursor reads one empty page, and ends', async () => {
    const world = await campaignWorld({}, { walk: 3, chunk: 1 });
    const people = await world.subscribe(6);
    await world.subscribe(1, { status: 'U' }, 'left');
    const id = await lostAndResumed(world);
    expect(await walkAll(world)).toEqual([
      ['walked', 0],
      ['walked', people[2]?.id],
      ['walked_last', people[5]?.id],
    ]);
    await world.drain();
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 6 });
  });

  it('leaves the records of a page written but not committed to the planner', async () => {
    const world = await campaignWorld({}, { plan: 3, walk: 3, chunk: 1 });
    const people = await world.subscribe(6);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    // The second page's invocation dies between its recipient records and its commit.
    const commit = world.campaigns.updateCampaign.bind(world.campaigns);
    world.campaigns.updateCampaign = async () => {
      throw new Error('the invocation died');
    };
    await expect(world.planOne()).rejects.toThrow('the invocation died');
    world.campaigns.updateCampaign = commit;
    // The second page's chunks are written; the campaign counts only the first page's.
    expect((await world.campaigns.chunkPage(issue.id, 1, 0, 1e9, 100)).chunks).toHaveLength(6);
    expect(await states(world, issue.id)).toMatchObject({ pending: 3 });
    world.queues.sends.length = 0;
    await resumeNewsletter(world.deps, issue.id);
    // The walk, handled here before the page the resume queued again, stops at the cursor.
    const at = world.queues.plans.findIndex((message) => message.kind === 'walk');
    const [walk] = world.queues.plans.splice(at, 1);
    if (walk?.kind !== 'walk') throw new Error('expected a walk');
    // A walk page that could read past the cursor does not queue the records it finds there.
    expect(await walkPage({ ...world.deps, pageSizes: { walk: 10 } }, walk)).toBe('walked_last');
    const committed = people.slice(0, 3).map((person) => person.id);
    expect(queuedIds(world)).toEqual(committed);
    // The same walk message again finds the feed moved on from its place: nothing more.
    expect(await walkPage(world.deps, walk)).toBe('walked_last');
    expect(queuedIds(world)).toEqual(committed);
    expect(world.queues.plans.map((message) => message.kind)).toEqual(['plan']);
    await world.drain();
    expect([...world.ses.counts().values()]).toEqual(Array(6).fill(1));
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', total: 6, sent: 6 });
  });

  it('queues every chunk not done with whoever in it still has an address, not a done chunk; a deleted subscriber is skipped and counted', async () => {
    const world = await campaignWorld({}, { chunk: 3 });
    const people = await world.subscribe(6);
    const [sent, gone, kept, ...later] = people;
    if (!sent || !gone || !kept) throw new Error('six');
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    const [first, second] = world.queues.sends.splice(0).map((entry) => entry.chunk);
    if (!first || 'kind' in first || !second || 'kind' in second) throw new Error('two chunks');
    // The second chunk was sent in full and given back done; of the first, one was sent by a
    // worker that died, its lease since lapsed.
    await world.queues.send([second]);
    await world.drain();
    const now = world.clock.now();
    await world.campaigns.claimChunk(issue.id, first.run, first.chunk, deadClaim(now, now - 1));
    await world.campaigns.recordOutcome(
      issue.id,
      first.run,
      sent.id,
      { state: 'sent', messageId: 'm', tokenHash: 'h', linkExpiresAt: 2e9 },
      new Date(world.clock.now()),
    );
    await deleteSubscriber(world, gone.email);
    await resumeNewsletter(world.deps, issue.id);
    expect(await world.planOne()).toBe('walked_last');
    // The worker that takes it sends to whoever has no record: `kept` only.
    expect(queuedIds(world)).toEqual([sent.id, kept.id]);
    expect(await world.campaigns.getRecipient(spread(issue.id), gone.id)).toMatchObject({
      state: 'skipped',
      reason: 'deleted',
    });
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sending', skipped: 1 });
    await world.drain();
    expect(world.ses.counts().get(kept.email)).toBe(1);
    expect(world.ses.counts().has(sent.email)).toBe(false);
    for (const person of later) expect(world.ses.counts().get(person.email)).toBe(1);
  });

  it('counts the deleted subscriber it skipped even when the campaign was paused or cancelled meanwhile', async () => {
    for (const [stop, status] of [
      [pauseNewsletter, 'paused'],
      [cancelNewsletter, 'cancelled'],
    ] as const) {
      const world = await campaignWorld();
      const [gone] = await world.subscribe(2);
      if (!gone) throw new Error('two');
      const id = await lostAndResumed(world);
      await deleteSubscriber(world, gone.email);
      const record = world.campaigns.recordOutcome.bind(world.campaigns);
      world.campaigns.recordOutcome = async (...args: Parameters<typeof record>) => {
        const skipped = await record(...args);
        await stop(world.deps, id);
        return skipped;
      };
      expect(await world.planOne()).toBe('walked_last');
      expect(await world.campaign(id)).toMatchObject({ status, skipped: 1 });
    }
  });

  it('[campaign.complete] ends the run when the one it skipped was the last unsettled recipient', async () => {
    const world = await campaignWorld();
    const people = await world.subscribe(3);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    // A worker reaches the first two and dies before the third, and before it could give the
    // chunk back: its lease lapses, the chunk is not done.
    const release = world.campaigns.releaseChunk.bind(world.campaigns);
    world.campaigns.releaseChunk = async () => undefined;
    const [entry] = world.queues.sends.splice(0);
    if (!entry || 'kind' in entry.chunk) throw new Error('expected a chunk of recipients');
    await world.queues.send([{ ...entry.chunk, recipients: entry.chunk.recipients.slice(0, 2) }]);
    await world.drain();
    world.campaigns.releaseChunk = release;
    world.clock.t += 120_000;
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sending', sent: 2 });
    await deleteSubscriber(world, people[2]?.email ?? '');
    await resumeNewsletter(world.deps, issue.id);
    expect(await world.planOne()).toBe('walked_last');
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'sent',
      total: 3,
      sent: 2,
      skipped: 1,
    });
  });

  it('a walk of an older generation, of another run, of an unknown issue or of a campaign no longer sending queues nothing', async () => {
    const world = await campaignWorld();
    await world.subscribe(3);
    const id = await lostAndResumed(world);
    await resumeNewsletter(world.deps, id);
    const [older, newer] = world.queues.plans.splice(0);
    if (older?.kind !== 'walk' || newer?.kind !== 'walk') throw new Error('expected two walks');
    expect(newer.walk).toBe(older.walk + 1);

    expect(await walkPage(world.deps, older)).toBe('not_sending');
    expect(await walkPage(world.deps, { ...newer, run: newer.run + 1 })).toBe('not_sending');
    expect(await walkPage(world.deps, { ...newer, newsletter_id: 999 })).toBe('not_sending');
    expect(world.queues.sends).toHaveLength(0);
    expect(await walkPage(world.deps, newer)).toBe('walked_last');
    expect(queuedIds(world)).toHaveLength(3);

    world.queues.sends.length = 0;
    await pauseNewsletter(world.deps, id);
    expect(await walkPage(world.deps, newer)).toBe('not_sending');
    expect(world.queues.sends).toHaveLength(0);
    expect(world.queues.plans).toHaveLength(0);
  });
});
