import type { SendQuota } from '../../adapters/mail/campaign-mailer-port.ts';
import type { CampaignRecord } from '../../domain/campaign/campaign.ts';
import {
  type CampaignAction,
  invalidTransition,
  transitionOf,
} from '../../domain/campaign/campaign-status.ts';
import {
  DependencyError,
  describeError,
  type NewsletterError,
  newsletterError,
} from '../../domain/errors.ts';
import type { CallContext } from '../dependencies.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';
import { turnOf } from './campaign-turns.ts';
import { overQuota, overQuotaMessage, type QuotaSource, quotaFit } from './quota-fit.ts';
import { restartWork } from './restart-work.ts';

/** What the send needs to know of its caller: where links point when the settings say nothing. */
export type SendContext = Pick<CallContext, 'apiRoot'>;

/** Parameters of a send. */
export interface SendOptions {
  readonly id: number;
  /** "Send to the new": only the `C` subscribers of its lists with no recipient record yet. */
  readonly newOnly?: boolean;
  /**
   * A firing schedule's time: the send starts only while the issue is still scheduled for it,
   * checked by the write that starts it, so a schedule that fires as the operator reschedules
   * does not send at the old time.
   */
  readonly scheduledAt?: string;
  /**
   * With SES's quota at hand, a send that does not fit in what the account may still send in
   * 24 hours is refused (`over_quota`, saying so) unless accepted ([campaign.quota]).
   */
  readonly quota?: QuotaSource;
  readonly acceptQuota?: boolean;
  /** Asked, when given, whether to go on with an issue that does not fit (a person at a CLI). */
  readonly confirmOverQuota?: (message: string) => Promise<boolean>;
  /** Told when SES's quota could not be read: the send goes on without the check. */
  readonly quotaUnknown?: () => void;
}

export const notFound = (id: number): NewsletterError =>
  newsletterError('not_found', `Newsletter ${id} does not exist.`);

/**
 * Starts sending an issue ([campaign.lifecycle], [campaign.plan]): one conditional write moves
 * it to `sending` and starts a run (the time and the highest subscriber id now bound who the
 * run is for), then the run's first page goes to the planner's queue. The first mail goes out
 * as soon as a worker has the first page's recipients. A send whose queueing failed (the
 * caller got a 503) is started again by the same call: a `sending` run that has planned
 * nothing yet queues its first page again (the queue drops a duplicate).
 */
export async function sendNewsletter(
  deps: CampaignDependencies,
  options: SendOptions,
  context: SendContext = {},
): Promise<CampaignRecord | NewsletterError> {
  const { id } = options;
  const current = await deps.campaigns.getCampaign(id);
  if (!current) return notFound(id);
  if (current.status === 'sending' && current.plan_page === 0 && !current.plan_done) {
    // One waiting for its turn is queued when its turn comes, not by asking again.
    if (current.waiting_since === undefined) await queueFirstPage(deps, current);
    return current;
  }
  const action: CampaignAction = options.newOnly ? 'resend_new' : 'send';
  const transition = transitionOf(action);
  if (!transition.from.includes(current.status))
    return invalidTransition(id, current.status, action);
  const linkBase = await readyToSend(deps, current, context);
  if (typeof linkBase !== 'string') return linkBase;
  if (options.quota && !options.acceptQuota) {
    const refusal = await checkQuota(deps, current, options.quota, options);
    if (refusal) return refusal;
  }
  const now = deps.now().toISOString();
  const turn = await turnOf(deps, id);
  const wait = turn.wait;
  const started = await deps.campaigns.updateCampaign(id, {
    expect: {
      statuses: transition.from,
      ...(options.scheduledAt === undefined ? {} : { scheduledAt: options.scheduledAt }),
    },
    set: {
      status: transition.to,
      started_at: now,
      max_subscriber_id: await deps.campaigns.lastSubscriberId(),
      new_only: options.newOnly === true,
      plan_page: 0,
      plan_cursor: 0,
      plan_done: false,
      link_base: linkBase,
      progress_at: now,
      active_at: now,
      consecutive_failures: 0,
      records_spread: true,
      fed_after: 0,
      fed_chunks: 0,
      done_chunks: 0,
      // An issue that ran before the records were spread keeps reading its old partition.
      ...(current.run > 0 && !current.records_spread ? { legacy_records: true } : {}),
      ...(wait ? { waiting_since: now } : {}),
    },
    add: { run: 1 },
    // A schedule's time (and its miss) no longer apply once it sends; the last run's recount
    // is of no use to this one.
    remove: [
      'pause_reason',
      'scheduled_at',
      'schedule_missed_at',
      'recount',
      'recounted_at',
      ...(wait ? [] : ['waiting_since' as const]),
    ],
    // Not `sent` while it sends: keyless callers see sent issues only.
    listPublicly: false,
  });
  if (!started) return lostRace(deps, id, action);
  deps.log.info('campaign_started', {
    newsletter_id: id,
    run: started.run,
    new_only: started.new_only,
    ...(wait ? { waits_for_turn: true } : {}),
    // Sharing the account's send budget with these ([campaign.budget]).
    ...(!wait && turn.others.length > 0 ? { sharing_with: turn.others.join(',') } : {}),
  });
  // Waiting for its turn ([campaign.overlap]): queued once no other campaign sends.
  if (!wait) await queueFirstPage(deps, started);
  return started;
}

/**
 * The refusal of a send that does not fit in the account's daily quota and was not accepted
 * ([campaign.quota]); undefined to go on. SES's quota is a courtesy check: when SES cannot be
 * asked, the send goes on (a quota refusal still pauses it), and the caller is told.
 */
async function checkQuota(
  deps: CampaignDependencies,
  issue: CampaignRecord,
  source: QuotaSource,
  options: SendOptions,
): Promise<NewsletterError | undefined> {
  let quota: SendQuota;
  try {
    quota = await source.sendQuota();
  } catch (error) {
    if (!(error instanceof DependencyError)) throw error;
    deps.log.warn('send_quota_unknown', { newsletter_id: issue.id, cause: describeError(error) });
    options.quotaUnknown?.();
    return undefined;
  }
  const fit = await quotaFit(deps, issue, options.newOnly === true, quota);
  if (fit.fits) return undefined;
  const message = overQuotaMessage(issue.id, fit);
  if (options.confirmOverQuota && (await options.confirmOverQuota(message))) return undefined;
  return overQuota(issue.id, fit);
}

/**
 * Whether an issue can be sent as it is, checked before a send starts and before it is
 * scheduled: where its links point (the settings' public_base_url, else the caller's
 * `{api_root}`), or the error saying what is missing (links, content, lists, a list that
 * no longer exists).
 */
export async function readyToSend(
  deps: CampaignDependencies,
  issue: CampaignRecord,
  context: SendContext,
): Promise<string | NewsletterError> {
  const settings = await deps.settings();
  const linkBase = settings.public_base_url || context.apiRoot;
  if (!linkBase)
    return newsletterError(
      'invalid_parameter',
      'Links in campaign mails cannot be built: set public_base_url in the settings.',
    );
  if (issue.lists.length === 0 || !(await deps.campaigns.getContent(issue.id)))
    return newsletterError(
      'invalid_state',
      `Newsletter ${issue.id} has no content to send: give it an HTML part and its lists first.`,
    );
  // A deleted list's members keep its id: an issue naming it (a copy, a send to the new) must
  // not reach them ([v2.lists-delete]).
  const gone = issue.lists.filter((id) => !settings.lists.some((list) => list.id === id));
  if (gone.length > 0)
    return newsletterError(
      'unknown_list',
      `Newsletter ${issue.id} goes to list ${gone.join(', ')}, which does not exist (deleted, or newer than this function's settings: then try again in a few minutes); change its lists first.`,
    );
  // Planning reads the list index; a table with subscribers from before it is indexed first,
  // or they would silently not get the issue.
  if (!(await deps.campaigns.listIndexReady()))
    return newsletterError(
      'invalid_state',
      'The list index does not hold the subscribers written before this version yet: run `npx newsletter subscribers reindex` once, then send.',
    );
  return linkBase;
}

async function queueFirstPage(deps: CampaignDependencies, campaign: CampaignRecord): Promise<void> {
  await deps.queue.plan({
    kind: 'plan',
    newsletter_id: campaign.id,
    run: campaign.run,
    page: 0,
    after: 0,
    walk: campaign.walk,
  });
}

/**
 * Pauses a sending issue ([campaign.pause]): workers look at the status at least every second,
 * start no further send once it is `paused`, and leave their unsent recipients pending.
 * Pausing a paused issue changes nothing.
 */
export async function pauseNewsletter(
  deps: CampaignDependencies,
  id: number,
): Promise<CampaignRecord | NewsletterError> {
  const transition = transitionOf('pause');
  const paused = await deps.campaigns.updateCampaign(id, {
    expect: { statuses: transition.from },
    set: { status: transition.to, pause_reason: 'operator' },
  });
  if (paused) {
    // A campaign waiting for its turn starts at the next sweep ([campaign.overlap]).
    deps.log.info('campaign_paused', { newsletter_id: id, run: paused.run });
    return paused;
  }
  const current = await deps.campaigns.getCampaign(id);
  if (current?.status === 'paused') return current;
  return lostRace(deps, id, 'pause');
}

/**
 * Resumes a paused issue ([campaign.resume]): planning goes on from the page it reached, and
 * a walk over its recipient records queues everyone still unsent; the run then ends as any
 * other, with every recipient settled once. Resuming an issue that is sending queues its
 * work again the same way, which repairs a send whose work was lost (harmless otherwise:
 * only one claim on a recipient wins).
 */
export async function resumeNewsletter(
  deps: CampaignDependencies,
  id: number,
): Promise<CampaignRecord | NewsletterError> {
  const transition = transitionOf('resume');
  const current = await deps.campaigns.getCampaign(id);
  // A run an earlier version planned has recipient records and no chunks: nothing to walk.
  if (current && current.run > 0 && !current.records_spread)
    return newsletterError(
      'invalid_state',
      `Newsletter ${id} was started by an earlier version, which planned it differently: it cannot be resumed after the upgrade. Cancel it; its report keeps who it reached (docs/deploy.md, "Upgrading").`,
    );
  // A campaign waiting for its turn stays waiting; a paused one takes its turn behind the
  // campaigns sending, when the settings say to wait ([campaign.overlap]).
  if (current?.status === 'sending' && current.waiting_since !== undefined) return current;
  const turn = await turnOf(deps, id);
  const wait = current?.status === 'paused' && turn.wait;
  const resumed = await restartWork(deps, id, [...transition.from, 'sending'], { wait });
  if (resumed) {
    deps.log.info('campaign_resumed', { newsletter_id: id, run: resumed.run, walk: resumed.walk });
    return resumed;
  }
  return lostRace(deps, id, 'resume');
}

/**
 * Cancels an issue that is scheduled, sending or paused ([campaign.cancel]): workers stop
 * within a second and nothing more of it is sent. Its recipient records stay, for the report.
 */
export async function cancelNewsletter(
  deps: CampaignDependencies,
  id: number,
): Promise<CampaignRecord | NewsletterError> {
  const transition = transitionOf('cancel');
  const cancelled = await deps.campaigns.updateCampaign(id, {
    expect: { statuses: transition.from },
    set: { status: transition.to },
  });
  if (cancelled) {
    deps.log.info('campaign_cancelled', { newsletter_id: id, run: cancelled.run });
    return cancelled;
  }
  const current = await deps.campaigns.getCampaign(id);
  if (current?.status === 'cancelled') return current;
  return lostRace(deps, id, 'cancel');
}

/** The error for a transition whose conditional write failed: the status it found instead. */
export async function lostRace(
  deps: CampaignDependencies,
  id: number,
  action: CampaignAction,
): Promise<NewsletterError> {
  const current = await deps.campaigns.getCampaign(id);
  return current ? invalidTransition(id, current.status, action) : notFound(id);
}
