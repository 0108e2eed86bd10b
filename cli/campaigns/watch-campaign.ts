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
  /** Mails per second recorded over the last readings; 0 until two readings span a change. */
  readonly rate: number;
  /** Seconds left at the campaign's pace (or, without one, at the recorded rate); undefined while unknown. */
  readonly secondsLeft?: number;
}

/** How far back the readings for the rate reach: about the last ten seconds. */
const WINDOW_MS = 10_000;

/**
 * The figures of a campaign from its recent readings (oldest first) and its pace
 * ([campaign.watch]). The rate is what the recorded counts moved over the readings; readings
 * at the start where nothing moved yet are left out but the last of them (a watch started
 * while planning would otherwise show half the rate), while a stall later in the window
 * lowers the rate, as it should. The time left comes from the campaign's pace (`pace`, its
 * `rate` in mails per second, all workers together), not from the recorded rate, which a
 * throttle or a chunk boundary makes jump: it is known as soon as the pace is.
 */
export function watchFigures(
  readings: readonly { readonly at: number; readonly settled: number }[],
  total: number,
  pace?: number,
): WatchFigures {
  const last = readings.at(-1);
  const done = last?.settled ?? 0;
  let from = 0;
  while (from + 1 < readings.length && readings[from + 1]?.settled === readings[from]?.settled)
    from += 1;
  const first = readings[from];
  const rate =
    last && first && last.at > first.at
      ? ((last.settled - first.settled) * 1000) / (last.at - first.at)
      : 0;
  const speed = pace !== undefined && pace > 0 ? pace : rate;
  return {
    settled: done,
    total,
    rate,
    ...(speed > 0 ? { secondsLeft: Math.max(0, total - done) / speed } : {}),
  };
}

/** `1,503`: counts as the summary prints them. */
function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** `45 s`, `2 min 10 s`, `1 h 5 min`: a duration as a person says it. */
export function spokenDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}

/**
 * The line a watch ends with ([campaign.watch]): `sent 1,503 of 1,503 in 2 min 10 s, 11.6 per
 * second`, skipped and failed named when there are any; the time runs from the run's start to
 * `sent_at`, or to `now` while it is not sent. Undefined for an issue never sent.
 */
export function watchSummary(
  campaign: Pick<
    CampaignRecord,
    'run' | 'sent' | 'skipped' | 'failed' | 'total' | 'started_at' | 'sent_at'
  >,
  now: number,
): string | undefined {
  if (campaign.run === 0 || !campaign.started_at) return undefined;
  const end = campaign.sent_at ? Date.parse(campaign.sent_at) : now;
  const seconds = Math.max(0, (end - Date.parse(campaign.started_at)) / 1000);
  const others = [
    ...(campaign.skipped > 0 ? [`${count(campaign.skipped)} skipped`] : []),
    ...(campaign.failed > 0 ? [`${count(campaign.failed)} failed`] : []),
  ];
  const perSecond = seconds > 0 ? `, ${(campaign.sent / seconds).toFixed(1)} per second` : '';
  return `sent ${count(campaign.sent)} of ${count(campaign.total)}${others.length > 0 ? ` (${others.join(', ')})` : ''} in ${spokenDuration(seconds)}${perSecond}`;
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
    const at = clock.now();
    readings.push({ at, settled: settled(campaign) });
    // The oldest kept reading is the last one at least WINDOW_MS old, whatever the interval.
    while (readings.length > 2 && (readings[1]?.at ?? at) <= at - WINDOW_MS) readings.shift();
    const figures = watchFigures(readings, campaign.total, campaign.rate);
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
