/**
 * `newsletters watch` once the send ends ([engagement.watch]): opens and clicks printed at once
 * and then each time they change, for as long as asked, on a clock the test moves.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { watchEngagement } from '../../../cli/campaigns/watch-engagement.ts';
import type { EngagementFigures } from '../../../shared/domain/engagement/engagement.ts';

const figures = (opened: number, clicked: number, clicks: number): EngagementFigures => ({
  opened,
  clicked,
  clicks,
  links: [],
  hours: [],
});

describe('[engagement.watch] opens and clicks as they come', () => {
  it('prints the figures, then only changes, until the time is up', async () => {
    const readings = [figures(0, 0, 0), figures(3, 1, 1), figures(3, 1, 1), figures(5, 2, 4)];
    let now = 0;
    const out = new PassThrough();
    let printed = '';
    out.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
    });
    const last = await watchEngagement(
      { figures: async () => readings.shift() ?? figures(5, 2, 4) },
      9,
      10,
      out,
      {
        now: () => now,
        sleep: async (ms) => {
          now += ms;
        },
      },
      { intervalMs: 5_000, forMs: 20_000 },
    );
    expect(last).toEqual(figures(5, 2, 4));
    expect(printed.trim().split('\n')).toEqual([
      'Newsletter 9: opened 0 (0%, approximate), clicked 0 (0%), 0 clicks.',
      'Newsletter 9: opened 3 (30%, approximate), clicked 1 (10%), 1 clicks.',
      'Newsletter 9: opened 5 (50%, approximate), clicked 2 (20%), 4 clicks.',
    ]);
  });

  it('with no time asked for, prints once', async () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
    let reads = 0;
    await watchEngagement(
      {
        figures: async () => {
          reads += 1;
          return figures(1, 0, 0);
        },
      },
      1,
      4,
      out,
      { now: () => 0, sleep: async () => undefined },
      { intervalMs: 5_000, forMs: 0 },
    );
    expect(reads).toBe(1);
    expect(lines).toEqual([
      'Newsletter 1: opened 1 (25%, approximate), clicked 0 (0%), 0 clicks.\n',
    ]);
  });
});
