import type { NewsletterIssueRecord } from '../newsletter-issue.ts';

/**
 * Share of the account's SES `MaxSendRate` a campaign may use at most (decisions part 10): the
 * quota counts every mail of the account, and activation and welcome mail keep the rest.
 */
export const CAMPAIGN_SES_SHARE = 0.8;

/**
 * What SES refused about the account or the sender rather than a recipient
 * ([campaign.account-refusal]): every mail would be refused alike, so the campaign pauses.
 */
export type AccountRefusal =
  | 'account_paused'
  | 'account_suspended'
  | 'sender_unverified'
  | 'sandbox'
  | 'configuration_set'
  | 'access_denied';

/**
 * Why a campaign stands paused: an operator's command, failures in a row, the account's daily
 * quota used up ([campaign.quota]), or a refusal about the account or the sender.
 */
export type PauseReason = 'operator' | 'failures' | 'quota' | AccountRefusal;

/**
 * How far a recount of a run's records has got ([campaign.complete]): each sweep reads a
 * bounded number of records and keeps its place and its counts here, so a recount of any size
 * ends over several sweeps. It holds only while the run settles nothing new.
 */
export interface RecountProgress {
  /** The run counted. */
  readonly run: number;
  /** When it started: progress after that makes its counts stale, and it starts again. */
  readonly started_at: string;
  /** The index of the record partition it reads, and the last key it read there. */
  readonly partition: number;
  readonly after?: string;
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
}

/**
 * A newsletter issue with the state of its sending (docs/storage.md, "Campaigns"): one run at a
 * time; each run plans recipients page by page from the subscriber index, then workers send.
 */
export interface CampaignRecord extends NewsletterIssueRecord {
  /** The lists it goes to (its content names them). */
  readonly lists: readonly number[];
  /** The run being sent or last sent: 1 for the first send, more for "send to the new". */
  readonly run: number;
  /** When the current run started: who confirmed later is not a recipient of it. */
  readonly started_at?: string;
  /** The highest subscriber id when the run started; newer subscribers are not planned. */
  readonly max_subscriber_id: number;
  /** Whether the run plans only subscribers without a recipient record of the issue yet. */
  readonly new_only: boolean;
  /** Pages of the subscriber index planned so far, and the last subscriber id they covered. */
  readonly plan_page: number;
  readonly plan_cursor: number;
  /** Whether every page is planned: `total` is final. */
  readonly plan_done: boolean;
  /** Recipients planned, and what became of them so far. */
  readonly total: number;
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
  /** Mails per second the run may send, all workers together (decided when planning starts). */
  readonly rate?: number;
  /** `{api_root}` the links in its mails point to. */
  readonly link_base?: string;
  /** When a mail of it was last sent, skipped or failed; stalls are measured from it. */
  readonly progress_at?: string;
  /** When a worker last did anything for it, throttled rounds included. */
  readonly active_at?: string;
  /** Failed sends in a row (every success sets it back to 0); too many pause the campaign. */
  readonly consecutive_failures: number;
  readonly pause_reason?: PauseReason;
  /** When a `scheduled` issue is due to start sending (its EventBridge schedule's time). */
  readonly scheduled_at?: string;
  /**
   * When its schedule fired too late to send ([campaign.schedule-late]): the issue stays
   * `scheduled` for the operator to send, or unschedule, by hand.
   */
  readonly schedule_missed_at?: string;
  /** When the sweeper last asked SES whether a campaign paused for the quota has room again. */
  readonly quota_checked_at?: string;
  /** When the sweeper last recounted the records of a quiet run ([campaign.complete]). */
  readonly recounted_at?: string;
  /**
   * Since when it waits for its turn ([campaign.overlap]): `sending`, but nothing of it is
   * queued until no other campaign sends. Absent for a campaign at work.
   */
  readonly waiting_since?: string;
  /** A recount under way, which the next sweeps go on with ([campaign.complete]). */
  readonly recount?: RecountProgress;
  /** Generation of the requeue walk: a resume starts a new one, older walk messages are dropped. */
  readonly walk: number;
  /**
   * How far the run's planned chunks are queued in this walk ([campaign.feed]): every chunk
   * whose first subscriber id is at most `fed_after` was put on the workers' queue; of them,
   * `fed_chunks` were queued and `done_chunks` reported done by their workers.
   */
  readonly fed_after: number;
  readonly fed_chunks: number;
  readonly done_chunks: number;
  /**
   * Whether a run from before recipient records were spread over partitions wrote some of its
   * records (docs/storage.md): they are read from their old partition too.
   */
  readonly legacy_records: boolean;
  /** Set on every run started since the records are spread, so an older issue is told apart. */
  readonly records_spread: boolean;
}

/**
 * Whether a campaign's work may go on: it is sending and not waiting for its turn
 * ([campaign.overlap]); work of one waiting that was queued before is dropped, and queued
 * again when its turn comes.
 */
export function isAtWork(
  campaign: Pick<CampaignRecord, 'status' | 'waiting_since'> | undefined,
): campaign is CampaignRecord {
  return campaign?.status === 'sending' && campaign.waiting_since === undefined;
}

/** Outcomes counted so far. */
export function settled(campaign: Pick<CampaignRecord, 'sent' | 'skipped' | 'failed'>): number {
  return campaign.sent + campaign.skipped + campaign.failed;
}

/**
 * Whether the run is over: every page planned and every planned recipient settled. The counts
 * never count a recipient twice (only the worker whose conditional write settled it counts it),
 * so reaching the total means every record is settled; a count lost with a worker that died is
 * recovered by the sweeper's recount from the records.
 */
export function isRunComplete(
  campaign: Pick<CampaignRecord, 'plan_done' | 'total' | 'sent' | 'skipped' | 'failed'>,
): boolean {
  return campaign.plan_done && settled(campaign) >= campaign.total;
}

/**
 * The rate a run may send at, all workers together, in mails per second: the settings' rate when
 * one is set, never more than CAMPAIGN_SES_SHARE of the account's SES maximum send rate.
 */
export function campaignRate(settingsRate: number | undefined, maxSendRate: number): number {
  const ceiling = Math.floor(maxSendRate * CAMPAIGN_SES_SHARE * 100) / 100;
  const rate = settingsRate === undefined ? ceiling : Math.min(settingsRate, ceiling);
  if (!(rate > 0)) throw new RangeError(`SES allows no sending (MaxSendRate ${maxSendRate})`);
  return rate;
}
