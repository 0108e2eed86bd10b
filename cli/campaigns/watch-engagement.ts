import type { Writable } from 'node:stream';
import type { EngagementStore } from '../../shared/adapters/store/engagement-store-port.ts';
import { type EngagementFigures, rateOf } from '../../shared/domain/engagement/engagement.ts';
import { writeLine } from '../io.ts';
import type { WatchClock } from './watch-campaign.ts';

/** One line of opens and clicks against the sent ([campaign.watch], [engagement.report]). */
export function engagementLine(figures: EngagementFigures, sent: number): string {
  return (
    `opened ${figures.opened} (${rateOf(figures.opened, sent)}%, approximate), ` +
    `clicked ${figures.clicked} (${rateOf(figures.clicked, sent)}%), ${figures.clicks} clicks`
  );
}

/**
 * After the send ends: opens and clicks as they come ([engagement.watch]). The figures are
 * printed at once, then again each time they change, until `forMs` has passed (0: once).
 * Reads one small partition per look, so watching costs next to nothing.
 */
export async function watchEngagement(
  engagement: Pick<EngagementStore, 'figures'>,
  id: number,
  sent: number,
  out: Writable,
  clock: WatchClock,
  options: { readonly intervalMs: number; readonly forMs: number },
): Promise<EngagementFigures> {
  const until = clock.now() + options.forMs;
  let shown = '';
  for (;;) {
    const figures = await engagement.figures(id);
    const line = engagementLine(figures, sent);
    if (line !== shown) {
      writeLine(out, `Newsletter ${id}: ${line}.`);
      shown = line;
    }
    if (clock.now() + options.intervalMs > until) return figures;
    await clock.sleep(options.intervalMs);
  }
}
