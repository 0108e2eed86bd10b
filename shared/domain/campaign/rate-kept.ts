import { type CampaignRecord, settled } from './campaign.ts';

/**
 * How much of its rate a sending campaign keeps ([campaign.rate-kept]): the sweeper samples
 * each sending campaign's sends every minute, and the sends between two samples, per second,
 * are a share of the rate the run was given. Below RATE_KEPT_ALARM_PERCENT for minutes on end,
 * the workers are too few or too small for the rate (docs/deploy.md, "Sizing the campaign
 * workers"), or something slows them.
 */
export interface SendSample {
  /** The run and requeue walk it was taken in: a resume starts a new walk, and a new sample. */
  readonly key: string;
  /** When it was taken (epoch ms). */
  readonly at: number;
  /** Sends so far: mails SES took or refused (sent and failed). Skips take no send slot. */
  readonly sends: number;
}

/** Below this share of its rate, for the alarm's minutes in a row, a campaign runs behind. */
export const RATE_KEPT_ALARM_PERCENT = 80;
/** The shortest and longest interval judged: a sweep a minute, give or take a late one. */
export const RATE_SAMPLE_MIN_MS = 30_000;
export const RATE_SAMPLE_MAX_MS = 3 * 60_000;
/**
 * A fully planned run with less than this many seconds of sending left is not judged: its last
 * chunks keep fewer workers busy than the rate needs, and it ends anyway.
 */
export const RATE_TAIL_SECONDS = 60;

/** The sample of a campaign at `at`. */
export function sendSampleOf(
  campaign: Pick<CampaignRecord, 'id' | 'run' | 'walk' | 'sent' | 'failed'>,
  at: number,
): SendSample {
  return {
    key: `${campaign.id}/${campaign.run}/${campaign.walk}`,
    at,
    sends: campaign.sent + campaign.failed,
  };
}

/**
 * The share of the account's campaign rate a campaign may use ([campaign.budget]): the run's
 * rate (the budget's, when it started) divided among the `sharers` campaigns at work at once.
 */
export function rateShare(rate: number, sharers: number): number {
  return rate / Math.max(1, sharers);
}

/**
 * The percentage of its share of the rate a campaign sent since `previous`, or undefined when
 * the interval says nothing about the workers: no earlier sample of the same run and walk, an
 * interval outside RATE_SAMPLE_MIN_MS to RATE_SAMPLE_MAX_MS, no rate, or the run's tail.
 * `sharers` is the number of campaigns at work at once, this one included ([campaign.budget]).
 */
export function rateKeptPercent(
  previous: SendSample | undefined,
  campaign: Pick<
    CampaignRecord,
    'id' | 'run' | 'walk' | 'sent' | 'skipped' | 'failed' | 'total' | 'plan_done' | 'rate'
  >,
  at: number,
  sharers = 1,
): number | undefined {
  const current = sendSampleOf(campaign, at);
  if (previous === undefined || previous.key !== current.key) return undefined;
  const elapsedMs = at - previous.at;
  if (elapsedMs < RATE_SAMPLE_MIN_MS || elapsedMs > RATE_SAMPLE_MAX_MS) return undefined;
  if (campaign.rate === undefined || !(campaign.rate > 0)) return undefined;
  const rate = rateShare(campaign.rate, sharers);
  if (campaign.plan_done && campaign.total - settled(campaign) < rate * RATE_TAIL_SECONDS)
    return undefined;
  const percent = (100 * (current.sends - previous.sends)) / ((rate * elapsedMs) / 1000);
  return Math.round(percent * 10) / 10;
}
