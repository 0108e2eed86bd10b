/**
 * The operator's controls of a campaign (shared/operations/campaign/control-campaign.ts) and the
 * engine's own ends of a run (finish-run.ts) against DynamoDB Local: what each answers, what it
 * leaves in the record and in the keyless listing, and the exact log lines and metrics the
 * runbook and the alarms rely on, including when someone else changed the campaign first.
 */
import { describe, expect, it } from 'vitest';
import type { CampaignQueue } from '../../shared/adapters/queue/campaign-queue-port.ts';
import type { CampaignRecord } from '../../shared/domain/campaign/campaign.ts';
import { DependencyError, isNewsletterError } from '../../shared/domain/errors.ts';
import {
  cancelNewsletter,
  pauseNewsletter,
  resumeNewsletter,
  sendNewsletter,
} from '../../shared/operations/campaign/control-campaign.ts';
import { completeRun } from '../../shared/operations/campaign/finish-run.ts';
import { type CampaignWorld, campaignWorld, linesOf, started } from '../support/campaign-world.ts';

/** The ids a keyless caller sees in the newsletters listing. */
async function listedPublicly(world: CampaignWorld): Promise<number[]> {
  return (await world.store.recentNewsletterIssues(50, false)).map((issue) => issue.id);
}

describe('[campaign.lifecycle] a send answers what stops it in words the operator can act on', () => {
  it('an unknown issue is not found, by its id', async () => {
    const world = await campaignWorld();
    expect(await sendNewsletter(world.deps, { id: 4242 })).toEqual({
      code: 'not_found',
      message: 'Newsletter 4242 does not exist.',
      status: 404,
    });
  });

  it('without public_base_url nor an api root the links cannot be built, and nothing starts', async () => {
    const world = await campaignWorld({ public_base_url: '' });
    await world.subscribe(1);
    const issue = await world.issue();
    expect(await sendNewsletter(world.deps, { id: issue.id })).toEqual({
      code: 'invalid_parameter',
      message: 'Links in campaign mails cannot be built: set public_base_url in the settings.',
      status: 400,
    });
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'draft' });
    // The caller's api root is the fallback the settings leave to it.
    const sending = await sendNewsletter(
      world.deps,
      { id: issue.id },
      { apiRoot: 'https://api.example.org/newsletter/v1' },
    );
    expect(sending).toMatchObject({
      status: 'sending',
      link_base: 'https://api.example.org/newsletter/v1',
    });
  });

  it('an issue with content but no lists has nothing to send', async () => {
    const world = await campaignWorld();
    await world.subscribe(2);
    // Saving refuses an issue with content and no lists; an older record may still be one.
    await world.deps.campaigns.createIssue(
      {
        id: 78,
        subject: 'Nowhere',
        created: new Date(world.clock.now()).toISOString(),
        private: false,
        lists: [],
      },
      { html: '<p>News.</p>', text: 'News.' },
    );
    expect(await sendNewsletter(world.deps, { id: 78 })).toEqual({
      code: 'invalid_state',
      message: 'Newsletter 78 has no content to send: give it an HTML part and its lists first.',
      status: 409,
    });
    expect(await world.campaign(78)).toMatchObject({ status: 'draft' });
    expect(world.queues.plans).toEqual([]);
  });

  it('an issue with lists but no content has nothing to send', async () => {
    const world = await campaignWorld();
    await world.deps.campaigns.createIssue(
      {
        id: 77,
        subject: 'Empty',
        created: new Date(world.clock.now()).toISOString(),
        private: false,
        lists: [1],
      },
      undefined,
    );
    expect(await sendNewsletter(world.deps, { id: 77 })).toEqual({
      code: 'invalid_state',
      message: 'Newsletter 77 has no content to send: give it an HTML part and its lists first.',
      status: 409,
    });
  });
});

describe('[campaign.lifecycle] a send whose first page was not queued is started again by the same call', () => {
  it('queues the same run’s first page again, starts no second run, and everyone gets the issue once', async () => {
    const world = await campaignWorld();
    const people = await world.subscribe(3);
    const issue = await world.issue();
    // SQS refused the first page: the caller got a 503, the campaign is already sending.
    const refusing: CampaignQueue = {
      plan: async () => {
        throw new DependencyError('sqs');
      },
      send: (chunks, delay) => world.queues.send(chunks, delay),
    };
    await expect(
      sendNewsletter({ ...world.deps, queue: refusing }, { id: issue.id }),
    ).rejects.toBeInstanceOf(DependencyError);
    const stuck = await world.campaign(issue.id);
    expect(stuck).toMatchObject({ status: 'sending', run: 1, plan_page: 0, plan_done: false });
    expect(world.queues.plans).toEqual([]);

    const again = await sendNewsletter(world.deps, { id: issue.id });
    expect(again).toEqual(stuck);
    expect(world.queues.plans).toEqual([
      { kind: 'plan', newsletter_id: issue.id, run: 1, page: 0, after: 0, walk: stuck.walk },
    ]);
    expect(linesOf(world, 'campaign_started')).toHaveLength(1);
    await world.drain();
    expect([...world.ses.counts().keys()].sort()).toEqual(people.map((p) => p.email).sort());
    expect([...world.ses.counts().values()].every((count) => count === 1)).toBe(true);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', run: 1, sent: 3 });
  });

  it('a send whose planning is under way is refused as any send of a sending issue', async () => {
    const world = await campaignWorld({}, { plan: 2 });
    await world.subscribe(5);
    const issue = await world.issue();
    await started(world, issue.id);
    await world.planOne();
    expect(await world.campaign(issue.id)).toMatchObject({ plan_page: 1, plan_done: false });
    expect(await sendNewsletter(world.deps, { id: issue.id })).toEqual({
      code: 'invalid_state',
      message: `Newsletter ${issue.id} is sending; only a draft or scheduled newsletter can be sent.`,
      status: 409,
    });
    // The status is the answer even when links could not be built either: the operator hears
    // why the issue cannot be sent at all, not what a send would have needed.
    world.current.settings = { ...world.current.settings, public_base_url: '' };
    expect(await sendNewsletter(world.deps, { id: issue.id })).toMatchObject({
      code: 'invalid_state',
      status: 409,
    });
    expect(world.queues.plans).toMatchObject([{ kind: 'plan', page: 1 }]);
  });
});

describe('[campaign.listing] a sending issue is not in the keyless listing until its run ends', () => {
  it('leaves it out while the first run and a send to the new run, and logs each start with its run', async () => {
    const world = await campaignWorld();
    await world.subscribe(2);
    const issue = await world.issue();
    const first = await started(world, issue.id);
    expect(await listedPublicly(world)).toEqual([]);
    await world.drain();
    expect(await listedPublicly(world)).toEqual([issue.id]);

    await world.subscribe(1, {}, 'late');
    const second = await started(world, issue.id, true);
    expect(await listedPublicly(world)).toEqual([]);
    expect(linesOf(world, 'campaign_started')).toEqual([
      {
        level: 'info',
        event: 'campaign_started',
        fields: { newsletter_id: issue.id, run: first.run, new_only: false },
      },
      {
        level: 'info',
        event: 'campaign_started',
        fields: { newsletter_id: issue.id, run: second.run, new_only: true },
      },
    ]);
    expect([first.run, second.run]).toEqual([1, 2]);
    await world.drain();
    expect(await listedPublicly(world)).toEqual([issue.id]);
  });
});

/** A send to two subscribers, started and wholly planned; its mails not yet sent. */
async function plannedForTwo(): Promise<{ world: CampaignWorld; issue: { id: number } }> {
  const world = await campaignWorld();
  await world.subscribe(2);
  const issue = await world.issue();
  await started(world, issue.id);
  while (world.queues.plans.length > 0) await world.planOne();
  return { world, issue };
}

describe('[campaign.complete] a run ends once, whoever notices first, with one line of its counts', () => {
  it('logs the sent, skipped and failed of the run that ended', async () => {
    const world = await campaignWorld();
    const [leaving] = await world.subscribe(4);
    const issue = await world.issue();
    await started(world, issue.id);
    while (world.queues.plans.length > 0) await world.planOne();
    const current = await world.store.getSubscriber(leaving?.email ?? '');
    if (!current) throw new Error('no subscriber');
    await world.store.replaceSubscriber(
      { ...current, status: 'U', version: current.version + 1 },
      current,
    );
    let refusals = 1;
    world.ses.failWith = () => (refusals-- > 0 ? 'rejected' : undefined);
    await world.drain({ inFlight: 1 });
    const done = await world.campaign(issue.id);
    expect(done).toMatchObject({ status: 'sent', total: 4, sent: 2, skipped: 1, failed: 1 });
    expect(linesOf(world, 'campaign_sent')).toEqual([
      {
        level: 'info',
        event: 'campaign_sent',
        fields: { newsletter_id: issue.id, run: 1, total: 4, sent: 2, skipped: 1, failed: 1 },
      },
    ]);
  });

  it('a second worker that saw the same run complete ends nothing and logs nothing', async () => {
    const { world, issue } = await plannedForTwo();
    // Both workers' count writes saw the run complete; the second ends it after the first did.
    const update = world.campaigns.updateCampaign.bind(world.campaigns);
    const counted: CampaignRecord[] = [];
    world.campaigns.updateCampaign = async (id, change) => {
      const result = await update(id, change);
      if (result && change.add?.sent !== undefined) counted.push(result);
      return result;
    };
    await world.drain();
    const complete = counted.at(-1);
    if (!complete) throw new Error('no count write');
    expect(complete).toMatchObject({ status: 'sending', plan_done: true, total: 2, sent: 2 });
    const sentAt = (await world.campaign(issue.id)).sent_at;
    world.clock.t += 1_000;
    expect(await completeRun(world.deps, complete)).toBeUndefined();
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', sent_at: sentAt });
    expect(linesOf(world, 'campaign_sent')).toHaveLength(1);
  });
});

describe('[campaign.private-race] an issue made private while its run ends is not listed', () => {
  it('the ending write that read it public finds it private, reads again and ends it unlisted', async () => {
    const { world, issue } = await plannedForTwo();
    // The operator's privacy edit lands between the ending worker's read and its write.
    const update = world.campaigns.updateCampaign.bind(world.campaigns);
    let edited = false;
    world.campaigns.updateCampaign = async (id, change) => {
      if (change.set?.status === 'sent' && !edited) {
        edited = true;
        await world.campaigns.editIssue(id, { private: true }, undefined, ['sending']);
      }
      return update(id, change);
    };
    await world.drain();
    expect(edited).toBe(true);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sent', private: true });
    expect(await listedPublicly(world)).toEqual([]);
    expect(linesOf(world, 'campaign_sent')).toHaveLength(1);
  });
});

describe('[campaign.auto-pause] failed sends in a row pause the campaign, with an alarm metric and an error line', () => {
  it('[ops.metrics] records rejected mails as failed, pauses at the limit, counts CampaignsAutoPaused for the newsletter and logs how many failed in a row', async () => {
    const world = await campaignWorld({ campaign: { failure_limit: 5 } });
    await world.subscribe(12);
    const issue = await world.issue();
    await started(world, issue.id);
    world.ses.failWith = () => 'rejected';
    await world.drain({ inFlight: 1 });
    const paused = await world.campaign(issue.id);
    expect(paused).toMatchObject({ status: 'paused', pause_reason: 'failures' });
    expect(paused.failed).toBeGreaterThanOrEqual(5);
    expect(paused.consecutive_failures).toBeGreaterThanOrEqual(5);
    expect(world.ses.mails).toHaveLength(0);
    expect(world.metrics.counts.CampaignsAutoPaused).toBe(1);
    expect(
      world.metrics.dimensioned.filter((count) => count.name === 'CampaignsAutoPaused'),
    ).toEqual([{ name: 'CampaignsAutoPaused', dimensions: { newsletter: String(issue.id) } }]);
    expect(linesOf(world, 'campaign_auto_paused')).toEqual([
      {
        level: 'error',
        event: 'campaign_auto_paused',
        fields: {
          newsletter_id: issue.id,
          reason: 'failures',
          consecutive_failures: paused.consecutive_failures,
        },
      },
    ]);
  });

  it('a campaign the operator paused first stays paused by the operator, with no alarm', async () => {
    const world = await campaignWorld({ campaign: { failure_limit: 3 } });
    await world.subscribe(6);
    const issue = await world.issue();
    await started(world, issue.id);
    while (world.queues.plans.length > 0) await world.planOne();
    world.ses.failWith = () => 'rejected';
    // The worker's count write saw the limit reached; the operator pauses before its own pause.
    const update = world.campaigns.updateCampaign.bind(world.campaigns);
    let seen: CampaignRecord | undefined;
    world.campaigns.updateCampaign = async (id, change) => {
      if (change.set?.pause_reason === 'failures') {
        seen = await world.campaign(id);
        await pauseNewsletter(world.deps, id);
      }
      return update(id, change);
    };
    await world.drain({ inFlight: 1 });
    expect(seen).toMatchObject({ status: 'sending' });
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'paused',
      pause_reason: 'operator',
    });
    expect(world.metrics.counts.CampaignsAutoPaused).toBeUndefined();
    expect(linesOf(world, 'campaign_auto_paused')).toEqual([]);
  });
});

describe('[campaign.pause] a pause is the operator’s, logged once; pausing a paused issue changes nothing', () => {
  it('records the operator as the reason and logs the run; a second pause returns the paused issue silently', async () => {
    const world = await campaignWorld();
    await world.subscribe(2);
    const issue = await world.issue();
    await started(world, issue.id);
    const paused = await pauseNewsletter(world.deps, issue.id);
    expect(paused).toMatchObject({ status: 'paused', pause_reason: 'operator', run: 1 });
    expect(await world.campaign(issue.id)).toMatchObject({ pause_reason: 'operator' });
    expect(linesOf(world, 'campaign_paused')).toEqual([
      { level: 'info', event: 'campaign_paused', fields: { newsletter_id: issue.id, run: 1 } },
    ]);
    expect(await pauseNewsletter(world.deps, issue.id)).toEqual(paused);
    expect(linesOf(world, 'campaign_paused')).toHaveLength(1);
  });

  it('an unknown issue is not found', async () => {
    const world = await campaignWorld();
    expect(await pauseNewsletter(world.deps, 4242)).toEqual({
      code: 'not_found',
      message: 'Newsletter 4242 does not exist.',
      status: 404,
    });
  });
});

describe('[campaign.resume] a resume logs the run and the walk it starts', () => {
  it('one line per resume, each with the new walk generation', async () => {
    const world = await campaignWorld();
    await world.subscribe(2);
    const issue = await world.issue();
    const sending = await started(world, issue.id);
    await pauseNewsletter(world.deps, issue.id);
    const resumed = await resumeNewsletter(world.deps, issue.id);
    if (isNewsletterError(resumed)) throw new Error(resumed.message);
    expect(resumed.walk).toBe(sending.walk + 1);
    // Resuming a sending issue repairs it the same way, under yet another walk.
    const again = await resumeNewsletter(world.deps, issue.id);
    if (isNewsletterError(again)) throw new Error(again.message);
    expect(linesOf(world, 'campaign_resumed')).toEqual([
      {
        level: 'info',
        event: 'campaign_resumed',
        fields: { newsletter_id: issue.id, run: 1, walk: resumed.walk },
      },
      {
        level: 'info',
        event: 'campaign_resumed',
        fields: { newsletter_id: issue.id, run: 1, walk: resumed.walk + 1 },
      },
    ]);
    expect(again.walk).toBe(resumed.walk + 1);
  });
});

describe('[campaign.cancel] a cancel is logged once; cancelling a cancelled issue changes nothing', () => {
  it('logs the run; a second cancel returns the cancelled issue silently', async () => {
    const world = await campaignWorld();
    await world.subscribe(2);
    const issue = await world.issue();
    await started(world, issue.id);
    const cancelled = await cancelNewsletter(world.deps, issue.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', run: 1 });
    expect(linesOf(world, 'campaign_cancelled')).toEqual([
      { level: 'info', event: 'campaign_cancelled', fields: { newsletter_id: issue.id, run: 1 } },
    ]);
    expect(await cancelNewsletter(world.deps, issue.id)).toEqual(cancelled);
    expect(linesOf(world, 'campaign_cancelled')).toHaveLength(1);
  });

  it('an unknown issue is not found', async () => {
    const world = await campaignWorld();
    expect(await cancelNewsletter(world.deps, 4242)).toEqual({
      code: 'not_found',
      message: 'Newsletter 4242 does not exist.',
      status: 404,
    });
  });
});
