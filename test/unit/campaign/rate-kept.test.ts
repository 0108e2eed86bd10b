/** The share of its rate a sending campaign keeps (shared/domain/campaign/rate-kept.ts). */
import { describe, expect, it } from 'vitest';
import {
  RATE_SAMPLE_MAX_MS,
  RATE_SAMPLE_MIN_MS,
  RATE_TAIL_SECONDS,
  rateKeptPercent,
  sendSampleOf,
} from '../../../shared/domain/campaign/rate-kept.ts';

const T = Date.parse('2026-11-22T10:00:00.000Z');
/** A campaign sending at 10 a second, half way through 10,000 recipients. */
const campaign = {
  id: 7,
  run: 1,
  walk: 0,
  rate: 10,
  plan_done: true,
  total: 10_000,
  sent: 5_000,
  skipped: 0,
  failed: 0,
};

describe('[campaign.rate-kept] the share of its rate a campaign kept since the last sweep', () => {
  it('is its sends (sent and failed, not skipped) per second over the interval, as a share of its rate', () => {
    const before = sendSampleOf(campaign, T);
    expect(before).toEqual({ key: '7/1/0', at: T, sends: 5_000 });
    // 60 s at 10 a second would be 600 sends: 450 sent and 30 failed are 80%.
    const after = { ...campaign, sent: 5_450, failed: 30, skipped: 200 };
    expect(rateKeptPercent(before, after, T + 60_000)).toBe(80);
    // Rounded to a tenth.
    expect(rateKeptPercent(before, { ...campaign, sent: 5_001 }, T + 60_000)).toBe(0.2);
    expect(rateKeptPercent(before, { ...campaign, sent: 5_700 }, T + 60_000)).toBe(116.7);
  });

  it('[campaign.budget] judges each of several campaigns at work against its share of the account’s rate', () => {
    const before = sendSampleOf(campaign, T);
    // Two at once share 10 a second: 300 sends in a minute are all of this one's share.
    const after = { ...campaign, sent: 5_300 };
    expect(rateKeptPercent(before, after, T + 60_000, 2)).toBe(100);
    expect(rateKeptPercent(before, after, T + 60_000, 1)).toBe(50);
    // Four at once: 120 sends are 80% of a quarter. Its tail is a minute at its share: 300
    // left are 2 minutes at 2.5 a second (judged), 30 s alone at 10 (not).
    expect(rateKeptPercent(before, { ...campaign, sent: 5_120 }, T + 60_000, 4)).toBe(80);
    const nearEnd = { ...campaign, sent: 9_700 };
    expect(rateKeptPercent(sendSampleOf(nearEnd, T), nearEnd, T + 60_000, 4)).toBe(0);
    expect(rateKeptPercent(sendSampleOf(nearEnd, T), nearEnd, T + 60_000, 1)).toBeUndefined();
  });

  it('says nothing without an earlier sample of the same run and walk (a resume starts a walk)', () => {
    const before = sendSampleOf(campaign, T);
    expect(rateKeptPercent(undefined, campaign, T + 60_000)).toBeUndefined();
    expect(rateKeptPercent(before, { ...campaign, walk: 1 }, T + 60_000)).toBeUndefined();
    expect(rateKeptPercent(before, { ...campaign, run: 2 }, T + 60_000)).toBeUndefined();
  });

  it('judges intervals of 30 s to 3 minutes only', () => {
    const before = sendSampleOf(campaign, T);
    const at = (ms: number) => rateKeptPercent(before, { ...campaign, sent: 5_300 }, T + ms);
    expect(at(RATE_SAMPLE_MIN_MS - 1)).toBeUndefined();
    expect(at(RATE_SAMPLE_MIN_MS)).toBe(100);
    expect(at(RATE_SAMPLE_MAX_MS)).toBeCloseTo(16.7, 9);
    expect(at(RATE_SAMPLE_MAX_MS + 1)).toBeUndefined();
  });

  it('skips a run without a rate and the tail of a planned run, not a run still planning', () => {
    const before = sendSampleOf(campaign, T);
    const { rate: _, ...noRate } = campaign;
    expect(rateKeptPercent(before, noRate, T + 60_000)).toBeUndefined();
    // Less than a minute of sending left: its last chunks keep fewer workers busy.
    const left = campaign.rate * RATE_TAIL_SECONDS;
    const tail = { ...campaign, sent: 5_000, total: 5_000 + left - 1 };
    expect(rateKeptPercent(before, tail, T + 60_000)).toBeUndefined();
    expect(rateKeptPercent(before, { ...tail, total: 5_000 + left }, T + 60_000)).toBe(0);
    // Still planning: the planner keeping the workers waiting is running behind too.
    expect(rateKeptPercent(before, { ...tail, plan_done: false }, T + 60_000)).toBe(0);
  });
});
