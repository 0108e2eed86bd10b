/**
 * Scheduling an issue (shared/operations/campaign/schedule-campaign.ts) over DynamoDB Local,
 * with the scheduler in memory and the clock the test's: what scheduling and unscheduling write
 * and create, and what a firing schedule does on time, late, and for a time the issue left.
 */
import { describe, expect, it } from 'vitest';
import type { CampaignScheduler } from '../../shared/adapters/scheduler/campaign-scheduler-port.ts';
import type { CampaignStore } from '../../shared/adapters/store/campaign-store-port.ts';
import { createCampaigns } from '../../shared/campaigns.ts';
import type { ScheduledSend } from '../../shared/domain/campaign/campaign-schedule.ts';
import { DependencyError, isNewsletterError } from '../../shared/domain/errors.ts';
import {
  cancelNewsletter,
  sendNewsletter,
} from '../../shared/operations/campaign/control-campaign.ts';
import {
  scheduleNewsletter,
  startScheduledSend,
  unscheduleNewsletter,
} from '../../shared/operations/campaign/schedule-campaign.ts';
import {
  type CampaignWorld,
  campaignWorld,
  linesOf,
  storeWith,
} from '../support/campaign-world.ts';

/** Schedules as EventBridge holds them: by name, with what they fire with. */
class MemoryScheduler implements CampaignScheduler {
  readonly schedules = new Map<string, { at: Date; input: ScheduledSend }>();
  async create(name: string, at: Date, input: ScheduledSend): Promise<void> {
    if (this.schedules.has(name)) throw new Error(`ConflictException: ${name}`);
    this.schedules.set(name, { at, input });
  }
  async delete(name: string): Promise<void> {
    this.schedules.delete(name);
  }
}

const API_ROOT = 'https://api.example.com/api/newsletter/v1';
const AT = '2026-11-23T09:00:00Z';

async function scheduledWorld(lateness?: number) {
  const world = await campaignWorld({
    campaign: {
      failure_limit: 20,
      stall_minutes: 10,
      ...(lateness ? { schedule_lateness_minutes: lateness } : {}),
    },
  });
  const scheduler = new MemoryScheduler();
  const deps = { ...world.deps, scheduler };
  await world.subscribe(3);
  const issue = await world.issue();
  return { world, scheduler, deps, issue };
}

/** The schedule's input as EventBridge passes it when it fires. */
function only(scheduler: MemoryScheduler): ScheduledSend {
  const [entry, ...more] = [...scheduler.schedules.values()];
  if (!entry || more.length > 0) throw new Error(`${scheduler.schedules.size} schedules`);
  return entry.input;
}

const fireAt = (world: CampaignWorld, time: string): void => {
  world.clock.t = Date.parse(time);
};

/** The world's campaign store, with `meanwhile` run once right after the first read: a race. */
function readThen(world: CampaignWorld, meanwhile: () => Promise<unknown>): CampaignStore {
  let pending: (() => Promise<unknown>) | undefined = meanwhile;
  return storeWith(world, {
    getCampaign: async (id) => {
      const read = await world.campaigns.getCampaign(id);
      const run = pending;
      pending = undefined;
      await run?.();
      return read;
    },
  });
}

const LATER = '2026-11-23T10:00:00Z';

/**
 * The issue scheduled for AT, and its schedule firing at `firedAt`: right after the starter read
 * the issue, the operator unschedules it and schedules it again for LATER.
 */
async function firedWhileRescheduled(firedAt: string) {
  const { world, scheduler, deps, issue } = await scheduledWorld();
  await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
  const input = only(scheduler);
  fireAt(world, firedAt);
  const campaigns = readThen(world, async () => {
    const unscheduled = await unscheduleNewsletter(deps, issue.id);
    if (isNewsletterError(unscheduled)) throw new Error(unscheduled.message);
    const again = await scheduleNewsletter(
      deps,
      { id: issue.id, at: LATER },
      { apiRoot: API_ROOT },
    );
    if (isNewsletterError(again)) throw new Error(again.message);
  });
  const outcome = await startScheduledSend({ ...world.deps, campaigns }, input);
  return { world, scheduler, issue, outcome };
}

describe('[campaign.schedule] scheduling and unscheduling an issue', () => {
  it('creates one schedule for the time and moves the draft to scheduled', async () => {
    // Arrange
    const { scheduler, deps, issue } = await scheduledWorld();
    // Act
    const scheduled = await scheduleNewsletter(
      deps,
      { id: issue.id, at: AT },
      { apiRoot: API_ROOT },
    );
    // Assert
    if (isNewsletterError(scheduled)) throw new Error(scheduled.message);
    expect(scheduled).toMatchObject({ status: 'scheduled', scheduled_at: AT });
    expect([...scheduler.schedules]).toEqual([
      [
        `newsletter-${issue.id}-20261123T090000Z`,
        {
          at: new Date(AT),
          input: { newsletter_id: issue.id, at: AT, api_root: API_ROOT },
        },
      ],
    ]);
  });

  it('refuses to schedule what is not a draft, a time in the past, or an issue whose links cannot be built', async () => {
    const { world, scheduler, deps, issue } = await scheduledWorld();
    const past = await scheduleNewsletter(
      deps,
      { id: issue.id, at: '2026-11-21T09:00:00Z' },
      {
        apiRoot: API_ROOT,
      },
    );
    expect(isNewsletterError(past) && past.code).toBe('invalid_parameter');
    // Checked as a send is: with no public_base_url and no caller's api_root, links cannot be built.
    world.current.settings = { ...world.current.settings, public_base_url: '' };
    const linkless = await scheduleNewsletter(deps, { id: issue.id, at: AT });
    expect(isNewsletterError(linkless) && linkless.message).toMatch(/set public_base_url/);
    expect(scheduler.schedules.size).toBe(0);
    await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    const again = await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    expect(isNewsletterError(again) && again.message).toBe(
      `Newsletter ${issue.id} is scheduled; only a draft newsletter can be scheduled.`,
    );
    const missing = await scheduleNewsletter(deps, { id: 999, at: AT }, { apiRoot: API_ROOT });
    expect(isNewsletterError(missing) && missing.code).toBe('not_found');
    expect(scheduler.schedules.size).toBe(1);
  });

  it('[campaign.schedule] unschedules back to draft and deletes the schedule; a draft or a missing issue cannot be unscheduled', async () => {
    const { world, scheduler, deps, issue } = await scheduledWorld();
    await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    const draft = await unscheduleNewsletter(deps, issue.id);
    if (isNewsletterError(draft)) throw new Error(draft.message);
    expect(draft.status).toBe('draft');
    expect(draft.scheduled_at).toBeUndefined();
    expect(scheduler.schedules.size).toBe(0);
    const twice = await unscheduleNewsletter(deps, issue.id);
    expect(isNewsletterError(twice) && twice.message).toBe(
      `Newsletter ${issue.id} is a draft; only a scheduled newsletter can be unscheduled.`,
    );
    expect((await world.campaign(issue.id)).status).toBe('draft');
    const missing = await unscheduleNewsletter(deps, 999);
    expect(isNewsletterError(missing) && missing.code).toBe('not_found');
  });

  it('[campaign.schedule] a schedule whose issue was sent by hand while it was made is deleted again', async () => {
    // Arrange: the operator starts the send between the checks and the write.
    const { world, scheduler, deps, issue } = await scheduledWorld();
    const racing = {
      ...deps,
      scheduler: {
        create: async (name: string, at: Date, input: ScheduledSend) => {
          await scheduler.create(name, at, input);
          await sendNewsletter(world.deps, { id: issue.id }, { apiRoot: API_ROOT });
        },
        delete: (name: string) => scheduler.delete(name),
      },
    };
    // Act
    const lost = await scheduleNewsletter(racing, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    // Assert
    expect(isNewsletterError(lost) && lost.message).toBe(
      `Newsletter ${issue.id} is sending; only a draft newsletter can be scheduled.`,
    );
    expect(scheduler.schedules.size).toBe(0);
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sending', run: 1 });
  });

  it('[campaign.schedule] an unschedule that loses to its schedule firing is refused, and the send goes on', async () => {
    // Arrange
    const { world, scheduler, deps, issue } = await scheduledWorld();
    await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    const input = only(scheduler);
    fireAt(world, AT);
    const campaigns = readThen(world, () => startScheduledSend(world.deps, input));
    // Act
    const lost = await unscheduleNewsletter({ ...deps, campaigns }, issue.id);
    // Assert
    expect(isNewsletterError(lost) && lost.message).toBe(
      `Newsletter ${issue.id} is sending; only a scheduled newsletter can be unscheduled.`,
    );
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'sending', run: 1 });
  });

  it('[campaign.lifecycle] an unschedule of a draft is refused even if the draft is scheduled meanwhile, which then stands', async () => {
    // Arrange: someone schedules the draft right after the unschedule read it.
    const { world, scheduler, deps, issue } = await scheduledWorld();
    const campaigns = readThen(world, () =>
      scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT }),
    );
    // Act
    const refused = await unscheduleNewsletter({ ...deps, campaigns }, issue.id);
    // Assert: refused for what it read; the issue and its schedule still agree.
    expect(isNewsletterError(refused) && refused.message).toBe(
      `Newsletter ${issue.id} is a draft; only a scheduled newsletter can be unscheduled.`,
    );
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'scheduled', scheduled_at: AT });
    expect(only(scheduler).at).toBe(AT);
  });

  it('[campaign.schedule] unscheduling succeeds when the schedule cannot be deleted, and names the one left behind', async () => {
    // Arrange
    const { world, scheduler, deps, issue } = await scheduledWorld();
    await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    const input = only(scheduler);
    const unavailable = {
      ...deps,
      scheduler: {
        create: (name: string, at: Date, send: ScheduledSend) => scheduler.create(name, at, send),
        delete: async () => {
          throw new DependencyError('scheduler');
        },
      },
    };
    // Act
    const draft = await unscheduleNewsletter(unavailable, issue.id);
    // Assert
    expect(!isNewsletterError(draft) && draft.status).toBe('draft');
    expect(linesOf(world, 'schedule_not_deleted')).toEqual([
      {
        level: 'warn',
        event: 'schedule_not_deleted',
        fields: {
          newsletter_id: issue.id,
          schedule: `newsletter-${issue.id}-20261123T090000Z`,
          error: 'DependencyError',
        },
      },
    ]);
    // The schedule left behind finds a draft when it fires, and does nothing.
    fireAt(world, AT);
    expect(await startScheduledSend(world.deps, input)).toEqual({
      kind: 'stale',
      newsletter_id: issue.id,
    });
    expect((await world.campaign(issue.id)).status).toBe('draft');
  });
});

describe('[campaign.schedule] a schedule that fires on time starts the send', () => {
  it('sends as `newsletters send` does, with the scheduler’s api_root for links', async () => {
    const { world, scheduler, deps, issue } = await scheduledWorld();
    world.current.settings = { ...world.current.settings, public_base_url: '' };
    await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    fireAt(world, '2026-11-23T09:00:02Z');
    const outcome = await startScheduledSend(world.deps, only(scheduler));
    expect(outcome).toEqual({ kind: 'sent', newsletter_id: issue.id, run: 1 });
    await world.drain();
    const sent = await world.campaign(issue.id);
    expect(sent).toMatchObject({ status: 'sent', sent: 3, link_base: API_ROOT });
    expect(sent.scheduled_at).toBeUndefined();
    expect(world.ses.mails).toHaveLength(3);
  });

  it('does nothing after an unschedule, a reschedule or a cancel', async () => {
    const { world, scheduler, deps, issue } = await scheduledWorld();
    await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    const input = only(scheduler);
    fireAt(world, AT);
    await unscheduleNewsletter(deps, issue.id);
    expect(await startScheduledSend(world.deps, input)).toEqual({
      kind: 'stale',
      newsletter_id: issue.id,
    });
    await scheduleNewsletter(
      deps,
      { id: issue.id, at: '2026-11-23T10:00:00Z' },
      {
        apiRoot: API_ROOT,
      },
    );
    // The old time's schedule, had its delete failed, finds the issue scheduled for another.
    expect((await startScheduledSend(world.deps, input)).kind).toBe('stale');
    await cancelNewsletter(world.deps, issue.id);
    expect((await startScheduledSend(world.deps, input)).kind).toBe('stale');
    expect(world.queues.plans).toHaveLength(0);
    expect((await world.campaign(issue.id)).status).toBe('cancelled');
  });

  it('[campaign.schedule] a schedule that fires just as the operator reschedules does not send at the old time', async () => {
    const { world, scheduler, issue, outcome } = await firedWhileRescheduled(AT);
    // The new time stands, unsent and unmarked.
    expect(outcome).toEqual({ kind: 'stale', newsletter_id: issue.id });
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'scheduled',
      scheduled_at: LATER,
      run: 0,
    });
    expect((await world.campaign(issue.id)).schedule_missed_at).toBeUndefined();
    expect(world.queues.plans).toHaveLength(0);
    expect(world.metrics.dimensioned).toEqual([]);
    expect(only(scheduler).at).toBe(LATER);
  });

  it('[campaign.schedule] a schedule for an issue that does not exist, or an input not of ours, does nothing', async () => {
    const world = await campaignWorld();
    expect(await startScheduledSend(world.deps, { newsletter_id: 999, at: AT })).toEqual({
      kind: 'stale',
      newsletter_id: 999,
    });
    expect(await startScheduledSend(world.deps, { newsletter_id: 'all', at: AT })).toEqual({
      kind: 'invalid',
    });
    expect(world.queues.plans).toHaveLength(0);
  });
});

describe('[campaign.schedule-late] a schedule that fires late', () => {
  it('[campaign.schedule-late] does not send: the issue stays scheduled, marked missed, and SchedulesMissed is counted', async () => {
    // Arrange
    const { world, scheduler, deps, issue } = await scheduledWorld();
    await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    // Act: the service was down; the schedule fires 15 minutes and a second late.
    fireAt(world, '2026-11-23T09:15:01Z');
    const outcome = await startScheduledSend(world.deps, only(scheduler));
    // Assert
    expect(outcome).toEqual({ kind: 'late', newsletter_id: issue.id, late_by_seconds: 901 });
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'scheduled',
      scheduled_at: AT,
      schedule_missed_at: '2026-11-23T09:15:01.000Z',
      run: 0,
    });
    expect(world.queues.plans).toHaveLength(0);
    expect(world.metrics.counts.SchedulesMissed).toBe(1);
    expect(world.metrics.dimensioned).toEqual([
      { name: 'SchedulesMissed', dimensions: { newsletter: String(issue.id) } },
    ]);
    // The line the CampaignScheduleMissed alarm tells the operator to read.
    expect(linesOf(world, 'schedule_missed')).toEqual([
      {
        level: 'warn',
        event: 'schedule_missed',
        fields: { newsletter_id: issue.id, at: AT, late_by_seconds: 901, lateness_minutes: 15 },
      },
    ]);
    // The operator decides: sending it by hand starts the send and clears the mark.
    const started = await sendNewsletter(world.deps, { id: issue.id }, { apiRoot: API_ROOT });
    if (isNewsletterError(started)) throw new Error(started.message);
    expect(started.status).toBe('sending');
    expect(started.schedule_missed_at).toBeUndefined();
  });

  it('[campaign.schedule-late] a scheduled send that cannot start is marked and counted the same way', async () => {
    // Arrange: scheduled with the settings' public_base_url, which is gone when it fires.
    const { world, scheduler, deps, issue } = await scheduledWorld();
    await scheduleNewsletter(deps, { id: issue.id, at: AT });
    world.current.settings = { ...world.current.settings, public_base_url: '' };
    fireAt(world, '2026-11-23T09:00:02Z');
    // Act
    const outcome = await startScheduledSend(world.deps, only(scheduler));
    // Assert
    const refused = await sendNewsletter(world.deps, { id: issue.id });
    if (!isNewsletterError(refused)) throw new Error('sent without public_base_url');
    expect(outcome).toEqual({ kind: 'failed', newsletter_id: issue.id, error: refused.message });
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'scheduled',
      scheduled_at: AT,
      schedule_missed_at: '2026-11-23T09:00:02.000Z',
      run: 0,
    });
    expect(world.queues.plans).toHaveLength(0);
    expect(world.metrics.dimensioned).toEqual([
      { name: 'SchedulesMissed', dimensions: { newsletter: String(issue.id) } },
    ]);
    expect(linesOf(world, 'scheduled_send_failed')).toEqual([
      {
        level: 'error',
        event: 'scheduled_send_failed',
        fields: { newsletter_id: issue.id, error: refused.code },
      },
    ]);
  });

  it('[campaign.schedule-late] a late schedule that fires just as the operator reschedules marks and counts nothing', async () => {
    const { world, issue, outcome } = await firedWhileRescheduled('2026-11-23T09:15:01Z');
    // The new scheduling is not missed, and no alarm is raised for it.
    expect(outcome).toEqual({ kind: 'stale', newsletter_id: issue.id });
    const now = await world.campaign(issue.id);
    expect(now).toMatchObject({ status: 'scheduled', scheduled_at: LATER });
    expect(now.schedule_missed_at).toBeUndefined();
    expect(world.metrics.dimensioned).toEqual([]);
    expect(linesOf(world, 'schedule_missed')).toEqual([]);
  });

  it('follows the settings’ lateness', async () => {
    const { world, scheduler, deps, issue } = await scheduledWorld(60);
    await scheduleNewsletter(deps, { id: issue.id, at: AT }, { apiRoot: API_ROOT });
    fireAt(world, '2026-11-23T09:45:00Z');
    expect((await startScheduledSend(world.deps, only(scheduler))).kind).toBe('sent');
  });
});

describe('[campaign.schedule] scheduling through the package’s function class', () => {
  it('schedules and unschedules with named parameters; without a scheduler it names what is missing', async () => {
    // Arrange
    const { world, scheduler, issue } = await scheduledWorld();
    const operations = createCampaigns({ ...world.deps, scheduler });
    // Act
    const missing = await operations.schedule_newsletter({ id: issue.id });
    const scheduled = await operations.schedule_newsletter({ id: String(issue.id), at: AT });
    const unconfigured = await createCampaigns(world.deps).unschedule_newsletter({ id: issue.id });
    const draft = await operations.unschedule_newsletter({ id: issue.id });
    // Assert
    expect(isNewsletterError(missing) && missing.message).toBe('at is required');
    expect(!isNewsletterError(scheduled) && scheduled.status).toBe('scheduled');
    expect(isNewsletterError(unconfigured) && unconfigured.message).toMatch(
      /campaign scheduler is not configured/,
    );
    expect(!isNewsletterError(draft) && draft.status).toBe('draft');
    expect(scheduler.schedules.size).toBe(0);
  });
});
