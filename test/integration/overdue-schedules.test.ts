/**
 * Scheduled issues the sweeper finds overdue, against DynamoDB Local
 * (shared/operations/campaign/overdue-schedules.ts, called by sweep-campaigns.ts): still
 * `scheduled` more than campaign.schedule_lateness_minutes after their time, whatever the
 * cause, counted in OverdueSchedules (alarmed) and logged, to the millisecond.
 */
import { describe, expect, it } from 'vitest';
import { isScheduleOverdue } from '../../shared/domain/campaign/campaign-schedule.ts';
import { reportOverdueSchedules } from '../../shared/operations/campaign/overdue-schedules.ts';
import { sweepCampaigns } from '../../shared/operations/campaign/sweep-campaigns.ts';
import { type CampaignWorld, campaignWorld, linesOf } from '../support/campaign-world.ts';
import { RecordingMetrics } from '../support/fixtures.ts';

const MINUTE = 60_000;

/** A draft moved to `scheduled` for `at`, as scheduling leaves it (its schedule not made here). */
async function scheduledFor(world: CampaignWorld, at: number, missedAt?: number) {
  const issue = await world.issue();
  const updated = await world.campaigns.updateCampaign(issue.id, {
    expect: { statuses: ['draft'] },
    set: {
      status: 'scheduled',
      scheduled_at: `${new Date(at).toISOString().slice(0, 19)}Z`,
      ...(missedAt === undefined ? {} : { schedule_missed_at: new Date(missedAt).toISOString() }),
    },
  });
  if (!updated) throw new Error('the issue is not a draft');
  return updated;
}

/** What one sweep of the overdue schedules counts, on a fresh metrics record. */
async function overdueAt(world: CampaignWorld, now: number): Promise<number | undefined> {
  world.clock.t = now;
  const metrics = new RecordingMetrics();
  await reportOverdueSchedules({ ...world.deps, metrics }, world.current.settings);
  return metrics.counts.OverdueSchedules;
}

describe('[campaign.schedule-overdue] an issue still scheduled past the lateness is overdue', () => {
  it('from just after the settings’ lateness on, whether its schedule fired late or never', async () => {
    // Arrange: one never fired, one fired late and marked missed, one not due yet, a draft.
    const world = await campaignWorld({ campaign: { schedule_lateness_minutes: 15 } });
    const t0 = Date.parse('2026-11-22T09:00:00.000Z');
    const silent = await scheduledFor(world, t0);
    const marked = await scheduledFor(world, t0, t0 + 20 * MINUTE);
    await scheduledFor(world, t0 + 60 * MINUTE);
    await world.issue();
    // Act / Assert: exactly 15 minutes after is not overdue yet, a millisecond later it is.
    expect(await overdueAt(world, t0 + 15 * MINUTE)).toBe(0);
    expect(linesOf(world, 'schedule_overdue')).toEqual([]);
    expect(await overdueAt(world, t0 + 15 * MINUTE + 1)).toBe(2);
    expect(linesOf(world, 'schedule_overdue').map((line) => [line.level, line.fields])).toEqual([
      [
        'warn',
        {
          newsletter_id: marked.id,
          at: marked.scheduled_at,
          missed_at: marked.schedule_missed_at,
          lateness_minutes: 15,
        },
      ],
      [
        'warn',
        {
          newsletter_id: silent.id,
          at: silent.scheduled_at,
          missed_at: null,
          lateness_minutes: 15,
        },
      ],
    ]);
    // The later one joins them once its own lateness is over.
    expect(await overdueAt(world, t0 + 75 * MINUTE + 1)).toBe(3);
  });

  it('counts zero when nothing is overdue, so the alarm clears; an issue sent or unscheduled is no longer counted', async () => {
    const world = await campaignWorld();
    const t0 = Date.parse('2026-11-22T09:00:00.000Z');
    const issue = await scheduledFor(world, t0);
    expect(await overdueAt(world, t0 + 16 * MINUTE)).toBe(1);
    await world.campaigns.updateCampaign(issue.id, {
      expect: { statuses: ['scheduled'] },
      set: { status: 'draft' },
      remove: ['scheduled_at'],
    });
    expect(await overdueAt(world, t0 + 17 * MINUTE)).toBe(0);
  });

  it('follows the settings’ lateness', async () => {
    const world = await campaignWorld({ campaign: { schedule_lateness_minutes: 60 } });
    const t0 = Date.parse('2026-11-22T09:00:00.000Z');
    await scheduledFor(world, t0);
    expect(await overdueAt(world, t0 + 59 * MINUTE)).toBe(0);
    expect(await overdueAt(world, t0 + 61 * MINUTE)).toBe(1);
  });

  it('is looked at by every sweep, which publishes OverdueSchedules beside StalledCampaigns', async () => {
    const world = await campaignWorld();
    const t0 = Date.parse('2026-11-22T09:00:00.000Z');
    await scheduledFor(world, t0);
    world.clock.t = t0 + 20 * MINUTE;
    const metrics = new RecordingMetrics();
    await sweepCampaigns({ ...world.deps, metrics });
    expect(metrics.counts).toMatchObject({ StalledCampaigns: 0, OverdueSchedules: 1 });
  });
});

describe('[campaign.schedule-overdue] the rule', () => {
  it('is about scheduled issues with a time only', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    const at = '2026-11-22T09:00:00Z';
    expect(isScheduleOverdue({ status: 'scheduled', scheduled_at: at }, now, 15)).toBe(true);
    expect(isScheduleOverdue({ status: 'scheduled', scheduled_at: at }, now, 60)).toBe(false);
    expect(isScheduleOverdue({ status: 'scheduled', scheduled_at: at }, now, 59)).toBe(true);
    expect(isScheduleOverdue({ status: 'sending', scheduled_at: at }, now, 15)).toBe(false);
    expect(isScheduleOverdue({ status: 'scheduled' }, now, 15)).toBe(false);
  });
});
