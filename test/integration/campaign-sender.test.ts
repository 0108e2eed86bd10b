/**
 * One worker invocation's handling of a chunk (shared/operations/campaign/send-recipients.ts)
 * in detail, against DynamoDB Local: the delays work is put back with, the retries of a refused
 * record, how often a worker re-reads its campaign, the groups subscribers are read in, and
 * what a chunk writes to the campaign record. campaign-engine.test.ts holds the whole journeys.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RESERVE_LEAD_MS } from '../../shared/domain/campaign/pace.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { SettingsInput } from '../../shared/domain/settings-schema.ts';
import {
  cancelNewsletter,
  pauseNewsletter,
  sendNewsletter,
} from '../../shared/operations/campaign/control-campaign.ts';
import { CAMPAIGN_BUDGET } from '../../shared/operations/campaign/send-recipients.ts';
import { type CampaignWorld, campaignWorld, recipientStates } from '../support/campaign-world.ts';

/** A started send whose planning is done: its chunks wait on the workers' queue. */
async function planned(
  count: number,
  settings: Partial<SettingsInput> = {},
  pageSizes: { plan?: number; chunk?: number } = {},
) {
  const world = await campaignWorld(settings, pageSizes);
  const people = await world.subscribe(count);
  const issue = await world.issue();
  const started = await sendNewsletter(world.deps, { id: issue.id });
  if (isNewsletterError(started)) throw new Error(started.message);
  while (world.queues.plans.length > 0) await world.planOne();
  return { world, people, id: issue.id };
}

/** The delay (s) and throttle rounds of the one message waiting on the workers' queue. */
function requeued(world: CampaignWorld) {
  expect(world.queues.sends).toHaveLength(1);
  const [waiting] = world.queues.sends;
  if (!waiting || 'kind' in waiting.chunk) throw new Error('no chunk waiting');
  return {
    delaySeconds: (waiting.visibleAt - world.clock.now()) / 1000,
    throttled: waiting.chunk.throttled,
    recipients: waiting.chunk.recipients.length,
  };
}

/**
 * Runs the operator's `act` once, while the worker waits for its next slot after the second
 * mail; whether it ran yet.
 */
function afterSecondMail(world: CampaignWorld, act: () => Promise<unknown>): () => boolean {
  const sleep = world.clock.sleep;
  let done = false;
  world.clock.sleep = async (ms: number) => {
    if (!done && world.ses.mails.length === 2) {
      done = true;
      const result = await act();
      if (isNewsletterError(result)) throw new Error(result.message);
    }
    await sleep(ms);
  };
  return () => done;
}

/** Records every wait of the virtual clock. */
function recordWaits(world: CampaignWorld): number[] {
  const waits: number[] = [];
  world.clock.sleep = async (ms: number) => {
    waits.push(ms);
    world.clock.t += Math.max(0, ms);
  };
  return waits;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('[campaign.throttle] work put back after a throttle waits 2 s doubling a round, at most 5 minutes', () => {
  it('each throttled round puts the whole chunk back with the next delay, within ±25%', async () => {
    const { world, id } = await planned(6);
    world.ses.failWith = () => 'throttled';
    const before = await world.campaign(id);
    for (const [jitter, factor] of [
      [0.999, 1.2495],
      [0, 0.75],
    ] as const) {
      vi.spyOn(Math, 'random').mockReturnValue(jitter);
      for (let round = 0; round < 9; round += 1) {
        const outcome = await world.sendOne({ inFlight: 1 });
        expect(outcome).toMatchObject({ sent: 0, failed: 0, requeued: 6, stopped: 'throttled' });
        const back = requeued(world);
        const throttledBefore = jitter === 0 ? round + 9 : round;
        expect(back.throttled).toBe(throttledBefore + 1);
        expect(back.recipients).toBe(6);
        expect(back.delaySeconds).toBeCloseTo(Math.min(300, 2 * 2 ** throttledBefore) * factor, 6);
      }
    }
    // Nothing was settled: the chunk was active, but made no progress.
    const after = await world.campaign(id);
    expect(after.progress_at).toBe(before.progress_at);
    expect(after.active_at).toBe(new Date(world.clock.now()).toISOString());
    expect(world.metrics.counts.CampaignThrottles).toBe(18);
    expect(world.metrics.dimensioned[0]).toEqual({
      name: 'CampaignThrottles',
      dimensions: { newsletter: String(id) },
    });
    // Nothing settled, so nothing counted, not even a zero.
    expect(world.metrics.counts).not.toHaveProperty('CampaignMailsSent');
    expect(world.metrics.counts).not.toHaveProperty('CampaignSkips');
    expect(world.metrics.counts).not.toHaveProperty('CampaignFailures');
    expect(await recipientStates(world, id)).toMatchObject({ pending: 6 });
  });

  it('SES unreachable puts the chunk back the same way and counts one failure in a row', async () => {
    const { world, id } = await planned(5);
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    world.ses.failWith = () => 'unavailable';
    const outcome = await world.sendOne({ inFlight: 1 });
    expect(outcome).toMatchObject({ sent: 0, failed: 0, requeued: 5, stopped: 'unavailable' });
    expect(requeued(world)).toEqual({ delaySeconds: 2, throttled: 1, recipients: 5 });
    expect(await world.campaign(id)).toMatchObject({ status: 'sending', consecutive_failures: 1 });
    expect(world.log.lines.filter((line) => line.event === 'campaign_ses_unavailable')).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: expect.objectContaining({ newsletter_id: id }),
      }),
    ]);
    expect(world.metrics.counts.CampaignThrottles).toBeUndefined();
  });
});

describe('[campaign.auto-pause] failures in a row count across the chunks of a run', () => {
  it('the chunk that reaches the limit stops at it, and the campaign pauses with the rest pending', async () => {
    const { world, id } = await planned(6, { campaign: { failure_limit: 3 } }, { chunk: 2 });
    world.ses.failWith = () => 'rejected';
    let attempts = 0;
    const fail = world.ses.failWith;
    world.ses.failWith = (mail) => {
      attempts += 1;
      return fail(mail);
    };
    expect(await world.sendOne({ inFlight: 1 })).toMatchObject({ failed: 2 });
    expect(await world.sendOne({ inFlight: 1 })).toMatchObject({ failed: 1, stopped: 'failures' });
    await world.drain({ inFlight: 1 });
    expect(attempts).toBe(3);
    expect(await world.campaign(id)).toMatchObject({
      status: 'paused',
      pause_reason: 'failures',
      failed: 3,
      consecutive_failures: 3,
    });
    expect(await recipientStates(world, id)).toMatchObject({ failed: 3, pending: 3 });
    const failures = world.log.lines.filter((line) => line.event === 'campaign_mail_failed');
    expect(failures).toHaveLength(3);
    expect(failures[0]?.fields).toMatchObject({
      newsletter_id: id,
      subscriber_id: expect.any(Number),
      cause: expect.stringContaining('fake SES: rejected'),
    });
    expect(world.metrics.dimensioned).toContainEqual({
      name: 'CampaignFailures',
      dimensions: { newsletter: String(id) },
    });
  });

  it('a success starts the count again, in its chunk and for the next', async () => {
    const { world, id } = await planned(6, { campaign: { failure_limit: 3 } }, { chunk: 3 });
    // Each chunk of three: one taken, then two refused.
    let sends = 0;
    world.ses.failWith = () => (sends++ % 3 === 0 ? undefined : 'rejected');
    const before = await world.campaign(id);
    expect(await world.sendOne({ inFlight: 1 })).toMatchObject({ sent: 1, failed: 2 });
    const afterFirst = await world.campaign(id);
    expect(afterFirst).toMatchObject({ status: 'sending', consecutive_failures: 2 });
    // A chunk that settled some mail made progress, however many of them failed.
    expect(afterFirst.progress_at).not.toBe(before.progress_at);
    expect(await world.sendOne({ inFlight: 1 })).toMatchObject({ sent: 1, failed: 2 });
    expect(await world.campaign(id)).toMatchObject({
      status: 'sent',
      sent: 2,
      failed: 4,
      consecutive_failures: 2,
    });
  });

  it('an error that is not SES refusing the mail counts as a refusal, recorded with the error', async () => {
    const { world, id } = await planned(1);
    world.ses.send = async () => {
      throw new TypeError('mail could not be built');
    };
    expect(await world.sendOne()).toMatchObject({ sent: 0, failed: 1, requeued: 0 });
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', failed: 1 });
    const [record] = (
      await world.campaigns.recipientPage({ newsletterId: id, legacy: false }, 0, 10)
    ).recipients;
    expect(record).toMatchObject({
      state: 'failed',
      error: expect.stringContaining('mail could not be built'),
    });
  });
});

describe('[campaign.claim] a record DynamoDB refuses is tried again, then the invocation fails', () => {
  const refusing = (world: CampaignWorld, times: number) => {
    const record = world.campaigns.recordOutcome.bind(world.campaigns);
    let refused = 0;
    world.campaigns.recordOutcome = async (id, run, subscriberId, outcome, at) => {
      if (outcome.state === 'sent' && refused < times) {
        refused += 1;
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ProvisionedThroughputExceededException',
        });
      }
      return record(id, run, subscriberId, outcome, at);
    };
    return () => refused;
  };

  it('waits 200, 400, 800, 1,600 and 2,000 ms between the tries, and the sixth is recorded', async () => {
    const { world, id } = await planned(1);
    const waits = recordWaits(world);
    const refused = refusing(world, 5);
    expect(await world.sendOne()).toMatchObject({ sent: 1, failed: 0 });
    expect(refused()).toBe(5);
    // The first wait is the send's slot, reserved RESERVE_LEAD_MS ahead ([campaign.pacing]).
    expect(waits).toEqual([RESERVE_LEAD_MS, 200, 400, 800, 1_600, 2_000]);
    const retries = world.log.lines.filter((line) => line.event === 'campaign_record_retry');
    expect(retries).toHaveLength(5);
    expect(retries[0]?.fields).toMatchObject({
      newsletter_id: id,
      subscriber_id: expect.any(Number),
      cause: expect.stringContaining('ProvisionedThroughputExceededException'),
    });
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 1 });
  });

  it('a sixth refusal fails the invocation, leaving the claim to lapse', async () => {
    const { world, id } = await planned(1);
    const refused = refusing(world, 6);
    await expect(world.sendOne()).rejects.toThrow('Throughput exceeds the current capacity');
    expect(refused()).toBe(6);
    expect(world.ses.mails).toHaveLength(1);
    expect(await recipientStates(world, id)).toMatchObject({ pending: 1, sent: 0 });
    // The chunk is still held: a delivery of it now waits for the lease to lapse.
    const [chunk] = (await world.campaigns.chunkPage(id, 1, 0, 1e9, 10)).chunks;
    expect(chunk?.done).toBe(false);
  });

  it('a claim outlives the invocation that made it, and is given back, done, at its end', async () => {
    const { world, id } = await planned(3);
    const claim = world.campaigns.claimChunk.bind(world.campaigns);
    const leases: number[] = [];
    world.campaigns.claimChunk = async (newsletterId, run, first, lease) => {
      leases.push(lease.leaseUntil);
      return claim(newsletterId, run, first, lease);
    };
    const deadline = world.clock.now() + 60_000;
    await world.sendOne();
    expect(leases).toHaveLength(1);
    for (const lease of leases) expect(lease).toBeGreaterThan(deadline);
    const [chunk] = (await world.campaigns.chunkPage(id, 1, 0, 1e9, 10)).chunks;
    expect(chunk).toMatchObject({ done: true });
  });
});

describe('[campaign.pause] a worker re-reads its campaign about once a second', () => {
  it('at 5 mails a second, 20 mails take about 4 s and as many count writes that read the status back', async () => {
    const { world, id } = await planned(20, { campaign: { rate: 5 } });
    const update = world.campaigns.updateCampaign.bind(world.campaigns);
    const counted: number[] = [];
    world.campaigns.updateCampaign = async (campaignId, change) => {
      counted.push(change.add?.sent ?? 0);
      return update(campaignId, change);
    };
    const from = world.clock.now();
    expect(await world.sendOne()).toMatchObject({ sent: 20 });
    const seconds = (world.clock.now() - from) / 1000;
    expect(seconds).toBeGreaterThan(3);
    // [campaign.watch] One a second while it runs, each adding what was sent since, then the
    // chunk's last, then the end of the run: the counts move as the mails go.
    expect(counted.length).toBeGreaterThanOrEqual(Math.floor(seconds));
    expect(counted.length).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    expect(counted.filter((sent) => sent > 0).length).toBeGreaterThanOrEqual(3);
    expect(counted.reduce((sum, sent) => sum + sent, 0)).toBe(20);
    expect(await world.campaign(id)).toMatchObject({ status: 'sent', sent: 20 });
  });

  it('a pause while a worker waits for its next slot stops it before that send', async () => {
    const { world, people, id } = await planned(8, { campaign: { rate: 2 } });
    // The fourth has left: a stopped chunk settles nobody after the pause, not even as skipped.
    const last = await world.store.getSubscriber(people[3]?.email ?? '');
    if (!last) throw new Error('no last subscriber');
    await world.store.replaceSubscriber({ ...last, status: 'U', version: last.version + 1 }, last);
    const read = world.campaigns.subscribersByEmail.bind(world.campaigns);
    const groups: number[] = [];
    world.campaigns.subscribersByEmail = async (emails) => {
      groups.push(emails.length);
      return read(emails);
    };
    const queued = world.queues.send.bind(world.queues);
    let requeues = 0;
    world.queues.send = async (chunks, delaySeconds) => {
      requeues += 1;
      return queued(chunks, delaySeconds);
    };
    const paused = afterSecondMail(world, () => pauseNewsletter(world.deps, id));
    const outcome = await world.sendOne({ inFlight: 1 });
    expect(paused()).toBe(true);
    expect(world.ses.mails).toHaveLength(2);
    expect(outcome).toMatchObject({ sent: 2, requeued: 0, stopped: 'paused' });
    expect(await recipientStates(world, id)).toMatchObject({
      sent: 2,
      skipped: 0,
      pending: 6,
    });
    // The groups after the pause are not even read; the unsent stay pending, not requeued.
    expect(groups).toEqual([2, 2]);
    expect(requeues).toBe(0);
    // What it did settle is progress, which the stalled-campaign alarm watches.
    const now = new Date(world.clock.now()).toISOString();
    expect(await world.campaign(id)).toMatchObject({ progress_at: now, active_at: now, sent: 2 });
  });
});

describe('[campaign.sweep] what a chunk settled is progress, whatever the campaign became', () => {
  it('a chunk that only skipped people still moves progress on, so the stall alarm stays quiet', async () => {
    const { world, people, id } = await planned(3);
    for (const person of people) {
      const record = await world.store.getSubscriber(person.email);
      if (!record) throw new Error('no subscriber');
      await world.store.replaceSubscriber(
        { ...record, status: 'U', version: record.version + 1 },
        record,
      );
    }
    world.clock.t += 60_000;
    const outcome = await world.sendOne();
    expect(outcome).toMatchObject({ sent: 0, skipped: 3 });
    const now = new Date(world.clock.now()).toISOString();
    expect(await world.campaign(id)).toMatchObject({ progress_at: now, skipped: 3 });
  });

  it('[campaign.cancel] the mails a chunk sent before a cancel are counted on the cancelled issue', async () => {
    const { world, id } = await planned(8, { campaign: { rate: 2 } });
    const cancelled = afterSecondMail(world, () => cancelNewsletter(world.deps, id));
    await world.sendOne({ inFlight: 1 });
    expect(cancelled()).toBe(true);
    expect(world.ses.mails).toHaveLength(2);
    expect(await world.campaign(id)).toMatchObject({ status: 'cancelled', sent: 2 });
  });
});

describe('[campaign.recheck] subscribers are read in small groups just before their sends', () => {
  // Three plans of 60 sent at three paces on a moved clock: seconds alone, past 30 s in a
  // whole suite's run.
  it('at most 25 at a time, fewer when the pace allows fewer a second, never fewer than the lanes', async () => {
    for (const [rate, sizes] of [
      [80, [25, 25, 10]],
      [2, [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]],
      [10, [10, 10, 10, 10, 10, 10]],
    ] as const) {
      const { world } = await planned(60, { campaign: { rate } });
      const read = world.campaigns.subscribersByEmail.bind(world.campaigns);
      const groups: number[] = [];
      world.campaigns.subscribersByEmail = async (emails) => {
        groups.push(emails.length);
        return read(emails);
      };
      expect(await world.sendOne()).toMatchObject({ sent: 60 });
      expect(groups).toEqual(sizes);
    }
  }, 90_000);

  it('counts the skipped by reason in one log line each', async () => {
    const { world, people, id } = await planned(5);
    for (const person of people.slice(0, 3)) {
      const current = await world.store.getSubscriber(person.email);
      if (!current) throw new Error(person.email);
      await world.store.replaceSubscriber(
        { ...current, status: 'U', version: current.version + 1 },
        current,
      );
    }
    expect(await world.sendOne()).toMatchObject({ sent: 2, skipped: 3 });
    expect(world.log.lines.filter((line) => line.event === 'campaign_skips')).toEqual([
      {
        level: 'info',
        event: 'campaign_skips',
        fields: { newsletter_id: id, reason: 'unsubscribed', count: 3 },
      },
    ]);
  });
});

describe('[campaign.pacing] a container keeps the slots it reserved for the chunks that follow', () => {
  it('a chunk uses the slots the one before left, whichever campaign’s: they are the account’s', async () => {
    const { world } = await planned(2, { campaign: { rate: 10 } }, { chunk: 1 });
    const leftOver = world.clock.now() + 5;
    // Left by a chunk of another campaign sent in this container.
    world.deps.slots.set(CAMPAIGN_BUDGET, [leftOver]);
    await world.sendOne();
    // The slot left over was the first mail's: it went at that slot's time.
    expect(world.ses.mails.map((mail) => mail.at)).toEqual([leftOver]);
    // The second chunk found none left and reserved from the account's time line.
    await world.sendOne();
    expect(world.ses.mails).toHaveLength(2);
    expect([...world.deps.slots.keys()]).toEqual([CAMPAIGN_BUDGET]);
  });
});

describe('[campaign.lifecycle] the content of a sending issue is read once per container', () => {
  it('two chunks of one issue read its content once', async () => {
    const { world } = await planned(4, {}, { chunk: 2 });
    const content = world.campaigns.getContent.bind(world.campaigns);
    let reads = 0;
    world.campaigns.getContent = async (id) => {
      reads += 1;
      return content(id);
    };
    await world.drain();
    expect(world.ses.mails).toHaveLength(4);
    expect(reads).toBe(1);
  });
});

describe('[campaign.web-version-link] a mail of a public issue links its web version', () => {
  it('to the API’s page of the issue, and a private issue’s mail to none', async () => {
    const world = await campaignWorld();
    await world.subscribe(1);
    const open = await world.issue();
    const closed = await world.issue({ subject: 'Staff only', private: true });
    for (const issue of [open, closed]) {
      const started = await sendNewsletter(world.deps, { id: issue.id });
      if (isNewsletterError(started)) throw new Error(started.message);
    }
    await world.drain();
    const [toOpen, toClosed] = [open, closed].map((issue) =>
      world.ses.mails.find((mail) => mail.tags.newsletter === String(issue.id)),
    );
    const page = `https://news.example.com/api/newsletter/v1/newsletters/${open.id}/view`;
    expect(toOpen?.html).toContain(page);
    expect(toOpen?.text).toContain(page);
    expect(toClosed?.html).not.toContain('/view');
    expect(toClosed?.text).not.toContain('/view');
  });
});
