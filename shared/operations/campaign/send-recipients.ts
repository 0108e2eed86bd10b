import type { CampaignMailer } from '../../adapters/mail/campaign-mailer-port.ts';
import { CampaignSendError } from '../../adapters/mail/campaign-mailer-port.ts';
import type { StoredContent } from '../../adapters/store/campaign-store-port.ts';
import type { SendBudget } from '../../adapters/store/send-budget-port.ts';
import type { CampaignRecord, PauseReason } from '../../domain/campaign/campaign.ts';
import { isAtWork, isRunComplete } from '../../domain/campaign/campaign.ts';
import { chunkLinkEntry, mintCampaignLink } from '../../domain/campaign/campaign-link.ts';
import { wantsFeed } from '../../domain/campaign/feed.ts';
import {
  LATE_SLOT_MS,
  type Pace,
  paceFor,
  RESERVE_LEAD_MS,
  slotTimes,
  takeSlot,
} from '../../domain/campaign/pace.ts';
import { type PreparedCampaign, prepareCampaign } from '../../domain/campaign/prepared-campaign.ts';
import { recheckRecipient, type SkipReason } from '../../domain/campaign/recipient.ts';
import { webVersionUrlOf } from '../../domain/campaign/web-version.ts';
import type { ChunkMessage, ChunkRecipient } from '../../domain/campaign/work-messages.ts';
import { campaignMailTags } from '../../domain/engagement/engagement.ts';
import { describeError } from '../../domain/errors.ts';
import { pageLink } from '../../domain/links.ts';
import type { Settings } from '../../domain/settings-schema.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import type { CampaignDependencies, Clock } from './campaign-dependencies.ts';
import { completeRun, pauseCampaign } from './finish-run.ts';

/** Sends in flight at once per invocation: also the most one crash of a worker may repeat. */
export const SENDS_IN_FLIGHT = 4;

/**
 * Tries at recording a mail SES took, each after the SDK's own retries, the first wait and the
 * longest: about 6 s in all, since giving up means a redelivery that mails this person again.
 */
const RECORD_SENT_ATTEMPTS = 6;
const RECORD_SENT_BACKOFF_MS = 100;
const RECORD_SENT_BACKOFF_MAX_MS = 2_000;

/** What a worker needs besides the campaign dependencies. */
export interface SenderDependencies extends CampaignDependencies {
  readonly mailer: Pick<CampaignMailer, 'send'>;
  readonly clock: Clock;
  /** The issues' content, read once per container: it cannot change once sending starts. */
  readonly contents: Map<number, StoredContent>;
  /** The account's send budget every campaign takes its send slots from ([campaign.budget]). */
  readonly budget: SendBudget;
  /**
   * Send slots this container reserved and has not used yet, by budget (epoch ms, ascending):
   * the next chunk in the same container uses them, whichever campaign's ([campaign.pacing]).
   */
  readonly slots: Map<string, number[]>;
}

/** The budget campaigns send from: the account's share of SES's rate kept for bulk mail. */
export const CAMPAIGN_BUDGET = 'bulk';

/** How one invocation of a worker runs. */
export interface SenderInvocation {
  /** Workers that may run at once (the queue's event source mapping's maximum concurrency). */
  readonly workers: number;
  /** This invocation: only it may settle the recipients it claims. */
  readonly owner: string;
  /** Epoch ms by which the invocation must have answered (Lambda's deadline). */
  readonly deadline: number;
  /** Sends in flight at once within the invocation; also the most a crash may repeat. */
  readonly inFlight: number;
}

/** What one chunk came to. */
export interface ChunkOutcome {
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
  /** Recipients put back on the queue for later (throttled, SES away, out of time). */
  readonly requeued: number;
  /** Why the chunk was dropped or cut short, if it was. */
  readonly stopped?:
    | 'not_sending'
    | 'paused'
    | 'throttled'
    | 'unavailable'
    | 'deadline'
    | 'failures'
    | 'quota'
    | 'account'
    | 'held';
}

/** Time kept free before the deadline: a send in flight and the writes after it. */
const DEADLINE_MARGIN_MS = 6_000;
/**
 * How often a worker records what it settled on the campaign, and so learns whether it is
 * still sending (a pause acts within it, and the counts an operator watches move every second).
 */
const STATUS_CHECK_MS = 1_000;
/** Longest pause of a pacing wait before the worker looks at its campaign's status again. */
const WAIT_STEP_MS = 250;
/**
 * Backoff of work put back after a throttle or an outage: 2 s doubling, at most 5 minutes,
 * each spread by ±BACKOFF_JITTER so that work put back together does not come back together.
 */
const BACKOFF_BASE_SECONDS = 2;
const BACKOFF_MAX_SECONDS = 300;
const BACKOFF_JITTER = 0.25;
/** The longest a chunk put back waits before it is delivered again (375 s). */
export const LONGEST_BACKOFF_MS = BACKOFF_MAX_SECONDS * (1 + BACKOFF_JITTER) * 1000;

/**
 * Sends one chunk of a campaign's recipients ([campaign.claim], [campaign.recheck],
 * [campaign.pacing], [campaign.throttle]). For each recipient, in turn and paced: the
 * subscriber is read as stored (in small groups just before their sends), a recipient who no
 * longer gets the issue is settled as skipped; otherwise the worker claims the recipient with
 * a lease (a conditional write that only a pending recipient, or one whose lease lapsed,
 * passes), sends through SES, and records the outcome and SES's message id under its claim.
 * A worker that dies between its claim and its record leaves a claim that lapses: the
 * redelivered chunk sends to that recipient again, so at most the mails in flight at a crash go
 * twice, and nobody is skipped. A throttle or an SES outage gives the claim back and puts every
 * unsent recipient back on the queue with a growing delay; a pause or a cancel stops the chunk
 * within about a second, leaving its unsent recipients pending for a resume.
 */
export async function sendChunk(
  deps: SenderDependencies,
  message: ChunkMessage,
  invocation: SenderInvocation,
): Promise<ChunkOutcome> {
  const id = message.newsletter_id;
  const campaign = await deps.campaigns.getCampaign(id);
  if (!isAtWork(campaign) || campaign.run !== message.run) {
    return { sent: 0, skipped: 0, failed: 0, requeued: 0, stopped: 'not_sending' };
  }
  const settings = await deps.settings();
  const content = await contentOf(deps, id);
  const now = deps.clock.now();
  const chunk = { run: message.run, first: message.chunk };
  const links = new Map(
    message.recipients.map((recipient) => [
      recipient.id,
      mintCampaignLink(id, recipient.id, chunk),
    ]),
  );
  const linkExpiresAt = Math.floor(now / 1000) + settings.unsubscribe_link_lifetime_days * 86_400;
  const claim = await deps.campaigns.claimChunk(id, message.run, message.chunk, {
    owner: invocation.owner,
    now,
    // The claim outlives this invocation only briefly: a redelivery (after the queue's
    // visibility timeout, longer than the function's) finds it lapsed.
    leaseUntil: invocation.deadline + 1_000,
    linkExpiresAt,
    entries: [...links].map(([subscriberId, link]) => chunkLinkEntry(subscriberId, link.hash)),
  });
  if (!claim.claimed) {
    // Another worker holds it (a duplicate delivery, or a walk while it sends): the work comes
    // back once that lease has lapsed, to send to whoever that worker left.
    if (claim.heldUntil === undefined) {
      deps.log.error('campaign_chunk_unplanned', { newsletter_id: id, chunk: message.chunk });
      return { sent: 0, skipped: 0, failed: 0, requeued: 0, stopped: 'not_sending' };
    }
    const wait = Math.ceil(Math.max(0, claim.heldUntil - now) / 1000) + 1;
    await deps.queue.send([message], Math.min(BACKOFF_MAX_SECONDS, wait));
    return { sent: 0, skipped: 0, failed: 0, requeued: message.recipients.length, stopped: 'held' };
  }
  let recipients = message.recipients;
  // Claimed before: some of it may have been settled by an earlier attempt, and is not sent
  // again. A first claim has nothing settled (only its owner writes the chunk's records).
  if (claim.claims > 1) {
    const settled = await deps.campaigns.settledRecipients(
      { newsletterId: id, legacy: false },
      recipients.map((recipient) => recipient.id),
    );
    recipients = recipients.filter((recipient) => !settled.has(recipient.id));
  }
  const pace = paceFor(campaign.rate ?? 1, invocation.workers, invocation.inFlight);
  const run = new ChunkRun(
    deps,
    invocation,
    campaign,
    settings,
    content,
    pace,
    links,
    linkExpiresAt,
  );
  await run.sendAll(recipients);
  return run.finish(message);
}

async function contentOf(deps: SenderDependencies, id: number): Promise<StoredContent> {
  const cached = deps.contents.get(id);
  if (cached) return cached;
  const content = await deps.campaigns.getContent(id);
  if (!content) throw new Error(`newsletter ${id} is sending but has no content`);
  deps.contents.set(id, content);
  return content;
}

/** The work of one invocation on one chunk. */
class ChunkRun {
  sent = 0;
  skipped = 0;
  failed = 0;
  /** Failed attempts since the last success in this invocation; all of them if none succeeded. */
  failuresInRow = 0;
  anySuccess = false;
  stopped: ChunkOutcome['stopped'];
  /** What to pause the campaign for, when the chunk stopped on SES's word about the account. */
  pauseFor: Exclude<PauseReason, 'operator'> | undefined;
  readonly leftovers: ChunkRecipient[] = [];
  readonly skipReasons = new Map<SkipReason, number>();
  /** Outcomes settled since the last flush, and whether a send succeeded among them. */
  #unflushed = { sent: 0, skipped: 0, failed: 0, failures: 0, anySuccess: false, done: 0 };
  #checkedAt: number;
  #checking: Promise<void> | undefined;
  #reserving: Promise<void> | undefined;
  readonly #slotKey: string;
  /** Recipients of the chunk no lane has started on, and lanes waiting for a slot. */
  #notStarted = 0;
  #waiting = 0;
  /** The issue compiled once for the chunk: each mail only fills in its recipient's values. */
  readonly #mail: PreparedCampaign;

  constructor(
    readonly deps: SenderDependencies,
    readonly invocation: SenderInvocation,
    readonly campaign: CampaignRecord,
    readonly settings: Settings,
    readonly content: StoredContent,
    readonly pace: Pace,
    /** The link minted for each recipient, noted on the chunk by its claim. */
    readonly links: ReadonlyMap<number, { readonly raw: string; readonly hash: string }>,
    readonly linkExpiresAt: number,
  ) {
    this.#checkedAt = deps.clock.now();
    this.#slotKey = CAMPAIGN_BUDGET;
    const webVersionUrl = webVersionUrlOf(campaign, campaign.link_base ?? '');
    this.#mail = prepareCampaign(
      { subject: campaign.subject, html: content.html, text: content.text },
      webVersionUrl ? { webVersionUrl } : {},
      settings.campaign.tag_fallbacks,
    );
  }

  /** Recipients go in groups small enough that their subscribers are read just before. */
  async sendAll(recipients: readonly ChunkRecipient[]): Promise<void> {
    this.#notStarted = recipients.length;
    const group = Math.max(this.invocation.inFlight, Math.min(25, this.pace.block));
    for (let start = 0; start < recipients.length; start += group) {
      const members = recipients.slice(start, start + group);
      if (await this.#shouldStop()) {
        this.leftovers.push(...members);
        continue;
      }
      const subscribers = await this.#subscribersOf(members);
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < members.length) {
          const recipient = members[next] as ChunkRecipient;
          next += 1;
          await this.#one(recipient, subscribers.get(recipient.id));
        }
      };
      await Promise.all(
        Array.from({ length: Math.min(this.invocation.inFlight, members.length) }, lane),
      );
    }
  }

  /**
   * The recipients' subscribers as stored now, by id ([campaign.recheck]): read by the address
   * the planner read (one consistent batch), and, for anyone not found there under their id
   * (an address changed since planning, or deleted), by the address their id has now. So a
   * changed address changes where the mail goes, not whether it goes.
   */
  async #subscribersOf(members: readonly ChunkRecipient[]): Promise<Map<number, SubscriberRecord>> {
    const campaigns = this.deps.campaigns;
    const found = new Map<number, SubscriberRecord>();
    const byPlannedEmail = await campaigns.subscribersByEmail(members.map((each) => each.email));
    const moved: number[] = [];
    for (const { id, email } of members) {
      const subscriber = byPlannedEmail.get(email);
      if (subscriber?.id === id) found.set(id, subscriber);
      else moved.push(id);
    }
    if (moved.length === 0) return found;
    const emails = await campaigns.emailsOf(moved);
    const byEmailNow = await campaigns.subscribersByEmail([...emails.values()]);
    for (const id of moved) {
      const subscriber = byEmailNow.get(emails.get(id) ?? '');
      if (subscriber?.id === id) found.set(id, subscriber);
    }
    return found;
  }

  /**
   * Whether to start no more sends: the campaign left `sending`, or time is short. About every
   * second the outcomes settled since the last time are added to the campaign's counts, and
   * the answer says whether it is still sending: one write serves both.
   */
  async #shouldStop(): Promise<boolean> {
    if (this.stopped) return true;
    if (this.#pastDeadline()) return true;
    if (this.#checkDue()) await this.#checking;
    return this.stopped !== undefined;
  }

  /** Whether the invocation is too close to its deadline to start a send (it stops if so). */
  #pastDeadline(): boolean {
    if (this.deps.clock.now() <= this.invocation.deadline - DEADLINE_MARGIN_MS) return false;
    this.stopped ??= 'deadline';
    return true;
  }

  /**
   * Starts the second's flush and status check when it is due; whether one is under way. A lane
   * waiting for its send slot does not wait for it (the write's latency would make its slot
   * late): the answer stops the chunk when it comes.
   */
  #checkDue(): boolean {
    if (
      this.#checking === undefined &&
      this.deps.clock.now() - this.#checkedAt >= STATUS_CHECK_MS
    ) {
      const checking = this.#flush().then((now) => {
        this.#checkedAt = this.deps.clock.now();
        this.#checking = undefined;
        if (!isAtWork(now) || now.run !== this.campaign.run) this.stopped ??= 'paused';
      });
      // Awaited by the next lane that checks, and at the chunk's end; never left unhandled.
      checking.catch(() => undefined);
      this.#checking = checking;
    }
    return this.#checking !== undefined;
  }

  async #one(recipient: ChunkRecipient, subscriber: SubscriberRecord | undefined): Promise<void> {
    this.#notStarted -= 1;
    if (await this.#shouldStop()) {
      this.leftovers.push(recipient);
      return;
    }
    const id = this.campaign.id;
    const decision = recheckRecipient(recipient.id, subscriber, {
      lists: this.campaign.lists,
      startedAt: this.campaign.started_at ?? '',
    });
    if (!decision.send) {
      if (
        await this.deps.campaigns.recordOutcome(
          id,
          this.campaign.run,
          recipient.id,
          { state: 'skipped', reason: decision.reason },
          this.deps.now(),
        )
      ) {
        this.skipped += 1;
        this.#unflushed.skipped += 1;
        this.skipReasons.set(decision.reason, (this.skipReasons.get(decision.reason) ?? 0) + 1);
      }
      return;
    }
    const link = this.links.get(recipient.id) as { readonly raw: string; readonly hash: string };
    // `subscriber` is defined: the recheck passed.
    const person = subscriber as SubscriberRecord;
    const unsubscribeUrl = pageLink(this.campaign.link_base ?? '', 'unsubscribe', link.raw);
    const rendered = this.#mail.render(
      {
        email: person.email,
        name: person.name,
        surname: person.surname,
        profile: person.profile,
      },
      unsubscribeUrl,
    );
    // Rendered first, so that the send starts at its slot's time.
    if (!(await this.#paced())) {
      this.leftovers.push(recipient);
      return;
    }
    let messageId: string;
    try {
      messageId = await this.deps.mailer.send(
        {
          to: person.email,
          ...rendered,
          unsubscribeUrl,
          tags: campaignMailTags(id, this.campaign.run, recipient.id),
          reportDelivery: (person.transient_bounces ?? 0) > 0,
          track: this.settings.campaign.tracking !== 'off',
        },
        this.settings.sender,
      );
    } catch (error) {
      await this.#failed(recipient, error);
      return;
    }
    this.anySuccess = true;
    this.failuresInRow = 0;
    this.#unflushed.anySuccess = true;
    this.#unflushed.failures = 0;
    await this.#recordSent(recipient, messageId, link.hash);
    this.sent += 1;
    this.#unflushed.sent += 1;
  }

  /**
   * The mail is out: its record must say so, or a redelivery would mail it again. A write
   * DynamoDB refuses even after the SDK's retries is tried again a few times; if it still
   * fails the invocation fails, as if the worker died with this mail in flight.
   */
  async #recordSent(
    recipient: ChunkRecipient,
    messageId: string,
    tokenHash: string,
  ): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.deps.campaigns.recordOutcome(
          this.campaign.id,
          this.campaign.run,
          recipient.id,
          { state: 'sent', messageId, tokenHash, linkExpiresAt: this.linkExpiresAt },
          this.deps.now(),
        );
        return;
      } catch (error) {
        if (attempt >= RECORD_SENT_ATTEMPTS) throw error;
        this.deps.log.warn('campaign_record_retry', {
          newsletter_id: this.campaign.id,
          subscriber_id: recipient.id,
          cause: describeError(error),
        });
        await this.deps.clock.sleep(
          Math.min(RECORD_SENT_BACKOFF_MAX_MS, RECORD_SENT_BACKOFF_MS * 2 ** attempt),
        );
      }
    }
  }

  /**
   * Waits for the next send slot of the campaign ([campaign.pacing]): one this container
   * reserved and has not used, or one of a new reservation; false when the chunk stopped.
   */
  async #paced(): Promise<boolean> {
    if (this.pace.unpaced) return !(await this.#shouldStop());
    this.#waiting += 1;
    try {
      return await this.#slot();
    } finally {
      this.#waiting -= 1;
    }
  }

  async #slot(): Promise<boolean> {
    const clock = this.deps.clock;
    let slot: number | undefined;
    for (;;) {
      // A lane waits for the second's check only while its slot is still ahead: one whose slot
      // is due sends, and the check's answer stops the chunk for the lanes after it.
      if (slot !== undefined && this.#checkDue() && slot > clock.now()) await this.#checking;
      const stop =
        slot === undefined
          ? await this.#shouldStop()
          : this.stopped !== undefined || this.#pastDeadline();
      if (stop) {
        // Unused, it may still serve the container's next chunk.
        if (slot !== undefined) this.deps.slots.get(this.#slotKey)?.unshift(slot);
        return false;
      }
      if (slot === undefined) {
        // Taken at once, before any await: two lanes never get the same slot.
        slot = takeSlot(this.deps.slots.get(this.#slotKey) ?? [], clock.now());
        if (slot === undefined) {
          this.#reserving ??= this.#reserve().finally(() => {
            this.#reserving = undefined;
          });
          await this.#reserving;
        }
        continue;
      }
      const early = slot - clock.now();
      if (early > 0) {
        await clock.sleep(Math.min(early, WAIT_STEP_MS));
        continue;
      }
      // A status check just now may have made it late: a late slot is dropped, not used.
      if (-early <= LATE_SLOT_MS) return true;
      slot = undefined;
    }
  }

  /**
   * Reserves the next block of the account's slots for this container: no more than the chunk
   * still needs, so the end of a chunk leaves no reserved slots to go stale (a rate lost).
   */
  async #reserve(): Promise<void> {
    const count = Math.max(1, Math.min(this.pace.block, this.#notStarted + this.#waiting));
    const start = await this.deps.budget.reserve(
      count,
      this.pace.spacingMs,
      this.deps.clock.now() + RESERVE_LEAD_MS,
    );
    const slots = this.deps.slots.get(this.#slotKey) ?? [];
    slots.push(...slotTimes(start, count, this.pace));
    this.deps.slots.set(this.#slotKey, slots);
  }

  /** Stops the chunk once the failures in a row, with those before it, reach the limit. */
  #countFailure(): void {
    this.failuresInRow += 1;
    this.#unflushed.failures += 1;
    const before = this.anySuccess ? 0 : this.campaign.consecutive_failures;
    if (before + this.failuresInRow >= this.settings.campaign.failure_limit)
      this.stopped ??= 'failures';
  }

  async #failed(recipient: ChunkRecipient, error: unknown): Promise<void> {
    const id = this.campaign.id;
    const failure = error instanceof CampaignSendError ? error.failure : 'rejected';
    const newsletter = { newsletter: String(id) };
    if (failure === 'rejected') {
      this.#countFailure();
      this.deps.log.warn('campaign_mail_failed', {
        newsletter_id: id,
        subscriber_id: recipient.id,
        cause: describeError(error),
      });
      if (
        await this.deps.campaigns.recordOutcome(
          id,
          this.campaign.run,
          recipient.id,
          { state: 'failed', error: describeError(error) },
          this.deps.now(),
        )
      ) {
        this.failed += 1;
        this.#unflushed.failed += 1;
      }
      return;
    }
    // Not sent, or not known to be: the recipient goes back, never lost. A call with no answer
    // may have been taken by SES: its copy may be in a mailbox, and its link, on the chunk,
    // stays valid ([campaign.unknown-outcome]).
    this.leftovers.push(recipient);
    switch (failure) {
      case 'throttled':
        this.deps.metrics.count('CampaignThrottles', 1, newsletter);
        this.stopped ??= 'throttled';
        return;
      case 'quota':
        // The account's daily quota: nothing more goes out until it has room again.
        this.stopped ??= 'quota';
        this.pauseFor ??= 'quota';
        return;
      case 'account': {
        const refusal = error instanceof CampaignSendError ? error.refusal : undefined;
        this.stopped ??= 'account';
        this.pauseFor ??= refusal ?? 'account_paused';
        this.deps.log.error('campaign_account_refused', {
          newsletter_id: id,
          refusal: this.pauseFor,
          cause: describeError(error),
        });
        return;
      }
      case 'unknown':
        this.deps.metrics.count('CampaignUnknownOutcomes', 1, newsletter);
        break;
    }
    this.#countFailure();
    this.deps.log.warn('campaign_ses_unavailable', {
      newsletter_id: id,
      cause: describeError(error),
    });
    this.stopped ??= 'unavailable';
  }

  /** Puts the unsent back, counts what was settled, and ends the run or pauses it if due. */
  async finish(message: ChunkMessage): Promise<ChunkOutcome> {
    const id = this.campaign.id;
    const requeue =
      this.leftovers.length > 0 &&
      (this.stopped === 'throttled' ||
        this.stopped === 'unavailable' ||
        this.stopped === 'deadline');
    try {
      // Given back first, so that the work put back finds it free; done when nobody is left.
      await this.deps.campaigns.releaseChunk(
        id,
        this.campaign.run,
        message.chunk,
        this.invocation.owner,
        this.leftovers.length === 0,
      );
      // Out of the campaign's queue, for the feed that keeps it filled ([campaign.feed]).
      if (this.leftovers.length === 0) this.#unflushed.done += 1;
      if (requeue) {
        const rounds = this.stopped === 'deadline' ? message.throttled : message.throttled + 1;
        const delay =
          this.stopped === 'deadline'
            ? 0
            : Math.min(BACKOFF_MAX_SECONDS, BACKOFF_BASE_SECONDS * 2 ** message.throttled) *
              (1 - BACKOFF_JITTER + Math.random() * 2 * BACKOFF_JITTER);
        await this.deps.queue.send(
          [{ ...message, recipients: this.leftovers, throttled: rounds }],
          delay,
        );
      }
    } finally {
      await this.#count();
    }
    return {
      sent: this.sent,
      skipped: this.skipped,
      failed: this.failed,
      requeued: requeue ? this.leftovers.length : 0,
      ...(this.stopped ? { stopped: this.stopped } : {}),
    };
  }

  /**
   * Adds the outcomes settled since the last flush to the campaign's counts; the campaign as
   * it is after (undefined when it is no longer this run, or ended).
   */
  async #flush(): Promise<CampaignRecord | undefined> {
    const done = this.#unflushed;
    this.#unflushed = { sent: 0, skipped: 0, failed: 0, failures: 0, anySuccess: false, done: 0 };
    const now = this.deps.now().toISOString();
    const settledAny = done.sent + done.skipped + done.failed > 0;
    const after = await this.deps.campaigns.updateCampaign(this.campaign.id, {
      // Counted whatever the campaign became meanwhile: these recipients were settled. A run
      // the sweeper ended (`sent`, recounted from the records) counted them already.
      expect: { statuses: ['sending', 'paused', 'cancelled'], run: this.campaign.run },
      add: {
        sent: done.sent,
        skipped: done.skipped,
        failed: done.failed,
        ...(!done.anySuccess && done.failures > 0 ? { consecutive_failures: done.failures } : {}),
        ...(done.done > 0 ? { done_chunks: done.done } : {}),
      },
      set: {
        active_at: now,
        ...(settledAny ? { progress_at: now } : {}),
        ...(done.anySuccess ? { consecutive_failures: done.failures } : {}),
      },
    });
    // The same answer says whether the campaign's queue runs short ([campaign.feed]): then the
    // next of its planned chunks are asked for (the queue keeps one such message of a place).
    if (wantsFeed(after) && after?.run === this.campaign.run) {
      try {
        await this.deps.queue.plan({
          kind: 'walk',
          newsletter_id: after.id,
          run: after.run,
          walk: after.walk,
          after: after.fed_after,
        });
      } catch (error) {
        // The next flush, or the sweeper within a minute, asks again.
        this.deps.log.warn('campaign_feed_not_asked', {
          newsletter_id: after.id,
          cause: describeError(error),
        });
      }
    }
    return after;
  }

  async #count(): Promise<void> {
    const id = this.campaign.id;
    const newsletter = { newsletter: String(id) };
    if (this.sent) this.deps.metrics.count('CampaignMailsSent', this.sent, newsletter);
    if (this.skipped) this.deps.metrics.count('CampaignSkips', this.skipped, newsletter);
    if (this.failed) this.deps.metrics.count('CampaignFailures', this.failed, newsletter);
    for (const [reason, count] of this.skipReasons)
      this.deps.log.info('campaign_skips', { newsletter_id: id, reason, count });
    // A flush of the lanes' own may still be on its way: its write first, then this one.
    await this.#checking;
    const after = await this.#flush();
    if (after?.status !== 'sending') return;
    if (this.pauseFor !== undefined && !isRunComplete(after))
      await pauseCampaign(this.deps, after, this.pauseFor);
    else if (
      after.consecutive_failures >= this.settings.campaign.failure_limit &&
      !isRunComplete(after)
    )
      await pauseCampaign(this.deps, after, 'failures');
    else if (isRunComplete(after)) await completeRun(this.deps, after);
  }
}
