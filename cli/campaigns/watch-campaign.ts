import type { CampaignStore } from '../../shared/adapters/store/campaign-store-port.ts';
import type { CampaignRecord } from '../../shared/domain/campaign/campaign.ts';
import { settled } from '../../shared/domain/campaign/campaign.ts';
import type { OutputStream } from '../io.ts';
import { writeLine } from '../io.ts';
import { startProgress } from '../progress.ts';

/** How the watch reads time and waits (a test runs it on its own clock). */
export interface WatchClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** What a watch shows at one moment. */
export interface WatchFigures {
  readonly settled: number;
  readonly total: number;
  /** Mails per second over the last readings. */
  readonly rate: number;
  /** Seconds left at that rate; undefined while unknown. */
  readonly secondsLeft?: number;
}

/** Readings kept for the rate: about the last ten seconds at one a second. */
const WINDOW = 10;

/**
 * The figures of a campaign from its recent readings (oldest first): how far it is, the rate
 * of the last readings and the time left at that rate.
 */
export function watchFigures(
  readings: readonly { readonly at: number; readonly settled: number }[],
  total: number,
): WatchFigures {
  const last = readings.at(-1);
  const first = readings[0];
  const done = last?.settled ?? 0;
  if (!last || !first || last.at <= first.at) return { settled: done, total, rate: 0 };
  const rate = ((last.settled - first.settled) * 1000) / (last.at - first.at);
  return {
    settled: done,
    total,
    rate,
    ...(rate > 0 ? { secondsLeft: Math.max(0, (total - done) / rate) } : {}),
  };
}

/** `h:mm:ss`. */
function clockTime(seconds: number): string {
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/**
 * Watches an issue's sending ([campaign.watch]): a progress bar of its settled recipients with
 * sent, skipped and failed counts, the rate and the time left, redrawn every `intervalMs` until
 * the issue is no longer sending. Not on a terminal, a line every few readings instead. The
 * last state is returned.
 */
export async function watchCampaign(
  campaigns: Pick<CampaignStore, 'getCampaign'>,
  id: number,
  out: OutputStream,
  clock: WatchClock,
  intervalMs = 1000,
): Promise<CampaignRecord | undefined> {
  let campaign = await campaigns.getCampaign(id);
  if (!campaign) return undefined;
  const readings: { at: number; settled: number }[] = [];
  const bar = startProgress(
    out,
    'Newsletter {id} [{bar}] {value}/{total} | sent {sent} skipped {skipped} failed {failed} | {rate}/s | left {left}',
    campaign.total,
  );
  let lines = 0;
  for (;;) {
    readings.push({ at: clock.now(), settled: settled(campaign) });
    if (readings.length > WINDOW) readings.shift();
    const figures = watchFigures(readings, campaign.total);
    const payload = {
      id,
      sent: campaign.sent,
      skipped: campaign.skipped,
      failed: campaign.failed,
      rate: figures.rate.toFixed(1),
      left: figures.secondsLeft === undefined ? '?' : clockTime(figures.secondsLeft),
    };
    bar.setTotal(campaign.total);
    bar.update(figures.settled, payload);
    if (!out.isTTY && lines % 5 === 0)
      writeLine(
        out,
        `${campaign.status}: ${figures.settled}/${campaign.total} settled (sent ${campaign.sent}, skipped ${campaign.skipped}, failed ${campaign.failed}), ${payload.rate}/s, left ${payload.left}`,
      );
    lines += 1;
    if (campaign.status !== 'sending') break;
    await clock.sleep(intervalMs);
    campaign = (await campaigns.getCampaign(id)) ?? campaign;
  }
  bar.stop();
  return campaign;
}
