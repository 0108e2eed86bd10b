import { describe, expect, it } from 'vitest';
import {
  spokenDuration,
  watchCampaign,
  watchFigures,
  watchSummary,
} from '../../../cli/campaigns/watch-campaign.ts';
import type { CampaignRecord } from '../../../shared/domain/campaign/campaign.ts';

describe('[campaign.watch] the rate and the time left', () => {
  it('come from the readings: 50 settled in 5 s of 1,000 is 10 a second and 85 s left', () => {
    const figures = watchFigures(
      [
        { at: 0, settled: 100 },
        { at: 5_000, settled: 150 },
      ],
      1_000,
    );
    expect(figures).toEqual({ settled: 150, total: 1_000, rate: 10, secondsLeft: 85 });
  });

  it('are unknown before two readings or without progress, when the pace is unknown', () => {
    expect(watchFigures([{ at: 0, settled: 3 }], 10)).toEqual({ settled: 3, total: 10, rate: 0 });
    expect(
      watchFigures(
        [
          { at: 0, settled: 3 },
          { at: 1000, settled: 3 },
        ],
        10,
      ).secondsLeft,
    ).toBeUndefined();
  });

  it('leave out the readings at the start where nothing moved yet, but the last of them', () => {
    const readings = [
      { at: 0, settled: 0 },
      { at: 1_000, settled: 0 },
      { at: 2_000, settled: 0 },
      { at: 3_000, settled: 12 },
      { at: 4_000, settled: 24 },
    ];
    // 24 in the 2 s since the last flat reading: 12 a second, not 24 / 4 s.
    expect(watchFigures(readings, 100).rate).toBe(12);
  });

  it('count a stall after the start: the rate falls while nothing moves', () => {
    const readings = [
      { at: 0, settled: 0 },
      { at: 1_000, settled: 10 },
      { at: 2_000, settled: 20 },
      { at: 3_000, settled: 20 },
      { at: 4_000, settled: 20 },
    ];
    expect(watchFigures(readings, 100).rate).toBe(5);
  });

  it("take the time left from the campaign's pace, known even before anything moved", () => {
    // 1,503 recipients at 11.6 a second: 129.6 s, whatever the readings say.
    expect(watchFigures([{ at: 0, settled: 0 }], 1_503, 11.6).secondsLeft).toBeCloseTo(129.57, 1);
    const moving = watchFigures(
      [
        { at: 0, settled: 0 },
        { at: 1_000, settled: 40 },
      ],
      1_040,
      10,
    );
    expect(moving).toEqual({ settled: 40, total: 1_040, rate: 40, secondsLeft: 100 });
  });
});

describe('[campaign.watch] the summary a watch ends with', () => {
  const run: Pick<
    CampaignRecord,
    'run' | 'sent' | 'skipped' | 'failed' | 'total' | 'started_at' | 'sent_at'
  > = {
    run: 1,
    sent: 1_503,
    skipped: 0,
    failed: 0,
    total: 1_503,
    started_at: '2026-11-28T09:00:00.000Z',
    sent_at: '2026-11-28T09:02:10.000Z',
  };

  it('says what was sent, in how long, at what rate, with thousands separators', () => {
    expect(watchSummary(run, Date.parse('2026-11-28T10:00:00Z'))).toBe(
      'sent 1,503 of 1,503 in 2 min 10 s, 11.6 per second',
    );
  });

  it('names skipped and failed, and runs to now while the issue is not sent', () => {
    const unsent = { ...run, sent: 1_200, skipped: 3, failed: 1_001, sent_at: null };
    expect(watchSummary(unsent, Date.parse('2026-11-28T09:01:40Z'))).toBe(
      'sent 1,200 of 1,503 (3 skipped, 1,001 failed) in 1 min 40 s, 12.0 per second',
    );
  });

  it('is nothing for an issue never sent, and has no rate for no time', () => {
    expect(watchSummary({ ...run, run: 0 }, 0)).toBeUndefined();
    expect(watchSummary({ ...run, sent_at: '2026-11-28T09:00:00.000Z' }, 0)).toBe(
      'sent 1,503 of 1,503 in 0 s',
    );
  });

  it('speaks durations as a person does', () => {
    expect(spokenDuration(45.4)).toBe('45 s');
    expect(spokenDuration(120)).toBe('2 min');
    expect(spokenDuration(3_600 + 5 * 60 + 7)).toBe('1 h 5 min');
    expect(spokenDuration(7_200)).toBe('2 h');
  });
});

describe('[campaign.watch] watching a run whose counts move every second', () => {
  it('never prints "left ?" once the pace is known, and ends at the run\'s end', async () => {
    let now = 0;
    const base = {
      id: 4,
      status: 'sending',
      run: 1,
      total: 60,
      sent: 0,
      skipped: 0,
      failed: 0,
      rate: 10,
      started_at: '2026-11-28T09:00:00.000Z',
    } as unknown as CampaignRecord; // only the fields the watch reads
    const states = [0, 0, 10, 20, 30, 40, 50, 60].map((sent, index, all) => ({
      ...base,
      sent,
      ...(index === all.length - 1 ? { status: 'sent' as const } : {}),
    }));
    let read = 0;
    const lines: string[] = [];
    const out = {
      isTTY: false,
      write: (chunk: string) => {
        lines.push(chunk);
        return true;
      },
    };
    const last = await watchCampaign(
      { getCampaign: async () => states[Math.min(read++, states.length - 1)] },
      4,
      out as never, // a stream stub: the watch only writes lines to it
      {
        now: () => now,
        sleep: async (ms) => {
          now += ms;
        },
      },
    );
    expect(last?.status).toBe('sent');
    const printed = lines.join('');
    expect(printed).not.toMatch(/left \?/);
    expect(printed).toMatch(/^sending: 0\/60 settled .*0\.0\/s, left 0:00:06$/m);
    expect(printed).toMatch(/^sending: 40\/60 settled .*10\.0\/s, left 0:00:02$/m);
  });
});
