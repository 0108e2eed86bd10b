import { recordSpaceOf } from '../../adapters/store/campaign-store-port.ts';
import {
  type CampaignRecord,
  campaignRate,
  isAtWork,
  isRunComplete,
} from '../../domain/campaign/campaign.ts';
import { feedHorizon, queuedChunks } from '../../domain/campaign/feed.ts';
import {
  type ChunkMessage,
  type ChunkRecipient,
  chunkMessages,
  type PlanMessage,
  type WalkMessage,
} from '../../domain/campaign/work-messages.ts';
import type { Settings } from '../../domain/settings-schema.ts';
import type { CampaignDependencies, PlannerDependencies } from './campaign-dependencies.ts';
import { completeRun } from './finish-run.ts';

/** Members of the list index read per planner invocation (a Query page per list shard). */
export const PLAN_PAGE_SIZE = 1_000;
/** Planned chunks read per walk invocation (each holds up to CHUNK_SIZE recipients). */
export const WALK_CHUNKS = 10;

/** What one planner invocation did. */
export type PlannerOutcome =
  | 'planned'
  | 'planned_last'
  | 'requeued'
  | 'walked'
  | 'walked_last'
  | 'not_sending'
  | 'already_planned';

/**
 * Plans one page of a run ([campaign.plan]): reads the next members of the lists from
 * the list index (id order, up to the highest id when the run started; the index holds only
 * `C` subscribers, and a subscriber is one entry whatever the number of lists they share), writes a
 * `pending` recipient record for each, then, in one conditional write, moves the campaign's
 * page and cursor on and adds to its total. Only then are the page's recipients queued for
 * the workers and the next page for the planner. The pages of a campaign travel one at a time
 * (the queue's message group), so no worker ever holds a recipient whose record a planner is
 * still writing. A page whose invocation died after its conditional write is finished by the
 * message's redelivery, which queues what the page queued; one that died before it is planned
 * again. No invocation loops over the whole list.
 */
export async function planPage(
  deps: PlannerDependencies,
  message: PlanMessage,
): Promise<PlannerOutcome> {
  const id = message.newsletter_id;
  const campaign = await deps.campaigns.getCampaign(id);
  if (!isAtWork(campaign) || campaign.run !== message.run) return 'not_sending';
  if (campaign.plan_page > message.page) {
    if (campaign.plan_page === message.page + 1)
      await finishCommittedPage(deps, campaign, message.after);
    return 'already_planned';
  }
  if (campaign.plan_page < message.page || campaign.plan_done) return 'already_planned';

  const settings = await deps.settings();
  const rate =
    campaign.rate === undefined || message.page === 0
      ? await currentRate(deps, settings)
      : campaign.rate;
  const page = await deps.campaigns.memberPage(
    campaign.lists,
    message.after,
    campaign.max_subscriber_id,
    deps.pageSizes?.plan ?? PLAN_PAGE_SIZE,
  );
  let recipients: ChunkRecipient[] = page.members;
  if (campaign.new_only && recipients.length > 0) {
    const reached = await deps.campaigns.settledRecipients(
      recordSpaceOf(campaign),
      recipients.map((recipient) => recipient.id),
    );
    recipients = recipients.filter((recipient) => !reached.has(recipient.id));
  }
  const chunks = chunkMessages(id, campaign.run, recipients, deps.pageSizes?.chunk);
  // The plan is stored before anything is queued: a lost message is found again by a walk.
  await deps.campaigns.putChunks(
    id,
    campaign.run,
    chunks.map((chunk) => ({ first: chunk.chunk, ids: chunk.recipients.map((each) => each.id) })),
  );
  // Queued with the commit as far as the queue is caught up to this page and has room; the
  // rest wait for the feed, as the ones before them are done ([campaign.feed]).
  const room =
    campaign.fed_after === message.after ? feedHorizon(rate) - queuedChunks(campaign) : 0;
  const fed = chunks.slice(0, Math.max(0, room));
  const feed = room > 0;
  const fedAfter = fed.length === chunks.length ? page.last : (fed.at(-1)?.chunk ?? message.after);
  const committed = await deps.campaigns.updateCampaign(id, {
    expect: {
      statuses: ['sending'],
      run: campaign.run,
      planPage: message.page,
      walk: campaign.walk,
      waiting: false,
    },
    set: {
      plan_page: message.page + 1,
      plan_cursor: page.last,
      plan_done: !page.more,
      rate,
      active_at: deps.now().toISOString(),
      ...(feed ? { fed_after: fedAfter } : {}),
    },
    add: { total: recipients.length, ...(feed ? { fed_chunks: fed.length } : {}) },
  });
  // Paused, cancelled or restarted meanwhile: nothing was queued, and the resume (or restart)
  // plans this page again.
  if (!committed) return 'not_sending';
  await deps.queue.send(fed);
  if (page.more) {
    await deps.queue.plan({
      kind: 'plan',
      newsletter_id: id,
      run: campaign.run,
      page: message.page + 1,
      after: page.last,
      walk: committed.walk,
    });
    return 'planned';
  }
  deps.log.info('campaign_planned', {
    newsletter_id: id,
    run: campaign.run,
    total: committed.total,
  });
  // Every recipient may be settled already (or there were none): then the run ends here.
  if (isRunComplete(committed)) await completeRun(deps, committed);
  return 'planned_last';
}

/**
 * Queues again what a committed page queues, for a redelivered page message whose first
 * delivery died after its conditional write: its unfinished chunks and the next page.
 */
async function finishCommittedPage(
  deps: PlannerDependencies,
  campaign: CampaignRecord,
  after: number,
): Promise<void> {
  // Its chunks were queued with the commit only if the feed took them then; otherwise the
  // feed queues them in their turn. A page's chunks are at most a page of the index: one walk
  // page holds them.
  if (campaign.fed_after >= campaign.plan_cursor)
    await queueUnfinished(deps, campaign, after, campaign.plan_cursor, WALK_CHUNKS, Infinity);
  if (!campaign.plan_done)
    await deps.queue.plan({
      kind: 'plan',
      newsletter_id: campaign.id,
      run: campaign.run,
      page: campaign.plan_page,
      after: campaign.plan_cursor,
      walk: campaign.walk,
    });
}

/**
 * Feeds the workers' queue from a run's planned chunks ([campaign.feed], [campaign.resume]):
 * queues the chunks not done after the place the feed reached, until the campaign has its
 * horizon of chunks in the queue (about a minute of sending), a page of chunks at a time. A
 * worker marks a chunk done when nobody in it is left; one that stopped (a pause, a throttle,
 * a crash) leaves it open, and its worker, or the next, sends to whoever in it has no record.
 * The workers ask for more as theirs are done; a resume, and the sweeper's repair, start a
 * new walk from the start, and a newer walk makes an older one stop. A feed from a place the
 * campaign has moved past (a duplicate) changes nothing.
 */
export async function walkPage(
  deps: PlannerDependencies,
  message: WalkMessage,
): Promise<PlannerOutcome> {
  let campaign = await deps.campaigns.getCampaign(message.newsletter_id);
  if (!isAtWork(campaign) || campaign.run !== message.run || campaign.walk !== message.walk)
    return 'not_sending';
  if (campaign.fed_after !== message.after) return 'walked_last';
  if (message.after === 0) {
    // A resume takes up the settings' rate and SES's quota as they are now.
    const rate = await currentRate(deps, await deps.settings());
    const updated = await deps.campaigns.updateCampaign(campaign.id, {
      expect: { statuses: ['sending'], run: campaign.run },
      set: { rate },
    });
    if (!updated) return 'not_sending';
    campaign = updated;
  }
  const room = feedHorizon(campaign.rate) - queuedChunks(campaign);
  if (room <= 0) return 'walked_last';
  const fed = await queueUnfinished(
    deps,
    campaign,
    message.after,
    campaign.plan_cursor,
    deps.pageSizes?.walk ?? WALK_CHUNKS,
    room,
  );
  const moved = await deps.campaigns.updateCampaign(campaign.id, {
    expect: {
      statuses: ['sending'],
      run: campaign.run,
      walk: campaign.walk,
      fedAfter: message.after,
      waiting: false,
    },
    set: { fed_after: fed.reached },
    add: { fed_chunks: fed.queued },
  });
  // Paused, ended or restarted meanwhile (a skip may have ended the run): this walk is over.
  if (!moved || fed.reached >= campaign.plan_cursor || fed.queued >= room) return 'walked_last';
  await deps.queue.plan({ ...message, after: fed.reached });
  return 'walked';
}

/**
 * Queues the chunks not done among those starting after `after` (one page of them, at most
 * `room` of them) up to the planner's cursor, with the addresses of their people from the
 * index. Someone gone from the index was deleted: settled here as skipped, unless a record says
 * their turn ended already. Returns how many it queued and where it got to: every planned
 * chunk starting at or before `reached` is queued or done.
 */
async function queueUnfinished(
  deps: CampaignDependencies,
  campaign: CampaignRecord,
  after: number,
  upTo: number,
  pageSize: number,
  room: number,
): Promise<{ readonly queued: number; readonly reached: number }> {
  const page = await deps.campaigns.chunkPage(campaign.id, campaign.run, after, upTo, pageSize);
  const taken: typeof page.chunks = [];
  let queuedOpen = 0;
  for (const chunk of page.chunks) {
    if (!chunk.done) {
      if (queuedOpen >= room) break;
      queuedOpen += 1;
    }
    taken.push(chunk);
  }
  const open = taken.filter((chunk) => !chunk.done);
  const emails = await deps.campaigns.emailsOf(open.flatMap((chunk) => chunk.ids));
  const now = deps.now();
  const messages: ChunkMessage[] = [];
  let deleted = 0;
  for (const chunk of open) {
    const recipients: ChunkRecipient[] = [];
    for (const subscriberId of chunk.ids) {
      const email = emails.get(subscriberId);
      if (email) recipients.push({ id: subscriberId, email });
      else if (
        await deps.campaigns.recordOutcome(
          campaign.id,
          campaign.run,
          subscriberId,
          { state: 'skipped', reason: 'deleted' },
          now,
        )
      )
        deleted += 1;
    }
    if (recipients.length > 0)
      messages.push({
        newsletter_id: campaign.id,
        run: campaign.run,
        chunk: chunk.first,
        recipients,
        throttled: 0,
      });
  }
  if (deleted > 0) {
    const counted = await deps.campaigns.updateCampaign(campaign.id, {
      expect: { statuses: ['sending', 'paused', 'cancelled'], run: campaign.run },
      add: { skipped: deleted },
    });
    if (counted?.status === 'sending' && isRunComplete(counted)) await completeRun(deps, counted);
  }
  await deps.queue.send(messages);
  const cutShort = taken.length < page.chunks.length;
  const lastTaken = taken.at(-1)?.first;
  const reached =
    (cutShort || page.more) && lastTaken !== undefined && lastTaken < upTo ? lastTaken : upTo;
  // A chunk whose people were all deleted queues no message, and stands in no queue.
  return { queued: messages.length, reached };
}

/** The run's rate from the settings and SES's quota now ([campaign.pacing]). */
async function currentRate(deps: PlannerDependencies, settings: Settings): Promise<number> {
  return campaignRate(settings.campaign.rate, await deps.quota.maxSendRate());
}
