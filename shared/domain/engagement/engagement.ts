import { randomBytes } from 'node:crypto';

/**
 * Opens and clicks of campaign mail (docs/behaviour.md, "Engagement"; decisions part 12): SES
 * tracks them on the tracked campaign configuration sets and publishes one event each; the
 * stack records them. These are the rules that need no AWS: the tags a mail carries, how a
 * batch of events is folded before anything is written, and what a report may show.
 */

/**
 * `campaign.tracking` ([engagement.modes]): `off` (SES is told not to track, and nothing that
 * still comes is recorded), `counts` (per issue, per link and per hour; nothing per person is
 * stored), `individual` (each recipient's first open and click besides, on their record).
 */
export type TrackingMode = 'off' | 'counts' | 'individual';

export const TRACKING_MODES: readonly TrackingMode[] = ['off', 'counts', 'individual'];

/** What a tracking event tells: whose mail, of which issue, and what happened when. */
export interface EngagementEvent {
  readonly kind: 'open' | 'click';
  readonly newsletterId: number;
  readonly subscriberId: number;
  /** When SES saw it (ISO 8601). */
  readonly at: string;
  /** The link's real address (clicks only). */
  readonly link?: string;
  /** SNS's message id: a notification SNS delivers twice carries the same one. */
  readonly eventId: string;
  /**
   * The mail's own token ([engagement.mail-token]): random, minted when the mail was sent and
   * kept nowhere with the recipient, so what is counted by it names nobody. Absent on mail sent
   * before mails carried one.
   */
  readonly mail?: string;
}

/** A mail token: 128 random bits, base64url (letters, digits, `_` and `-`, as SES allows). */
export function mailToken(): string {
  return randomBytes(16).toString('base64url');
}

/** A mail token as a tag carries it; undefined when absent or not one. */
export function mailTokenOfTag(values: readonly string[] | undefined): string | undefined {
  const value = values?.[0];
  return value !== undefined && /^[A-Za-z0-9_-]{22}$/.test(value) ? value : undefined;
}

/**
 * The message tags of a campaign mail ([engagement.tags]): ids and the mail's token only, since
 * SES allows letters, digits, `_` and `-` in a tag value and repeats the tags in every event of
 * the mail, so an open or a click names its issue and recipient without any address. The token
 * is new for every mail sent, and stored nowhere by the sender.
 */
export function campaignMailTags(
  newsletterId: number,
  run: number,
  subscriberId: number,
  mail: string = mailToken(),
): Record<string, string> {
  return {
    newsletter: String(newsletterId),
    run: String(run),
    subscriber: String(subscriberId),
    mail,
  };
}

/** An id as a tag carries it: a positive integer, nothing else. */
const ID = /^[1-9][0-9]{0,14}$/;

/** A tag value as an id; undefined when absent or not an id. */
export function idOfTag(values: readonly string[] | undefined): number | undefined {
  const value = values?.[0];
  return value !== undefined && ID.test(value) ? Number(value) : undefined;
}

/** What a batch comes to once folded: the events worth a write, and those that were not. */
export interface FoldedBatch {
  /** In the order they came, the earliest open per person and issue, and every distinct click. */
  readonly events: readonly EngagementEvent[];
  /** Events of the batch that repeat one kept (the same SNS message, or a later open). */
  readonly repeats: number;
}

/**
 * Folds a batch before any write ([engagement.batch]): an SNS message delivered twice counts
 * once, and of the opens of one person's mail of one issue only the earliest is kept (the
 * others can change nothing: only the first open is recorded). Clicks are each kept, since
 * every click counts towards total clicks and its link's clicks.
 */
export function foldBatch(events: readonly EngagementEvent[]): FoldedBatch {
  const seen = new Set<string>();
  const opens = new Map<string, number>();
  const kept: (EngagementEvent | undefined)[] = [];
  let repeats = 0;
  for (const event of events) {
    if (seen.has(event.eventId)) {
      repeats += 1;
      continue;
    }
    seen.add(event.eventId);
    if (event.kind === 'click') {
      kept.push(event);
      continue;
    }
    const person = `${event.newsletterId}/${event.subscriberId}`;
    const index = opens.get(person);
    const earlier = index === undefined ? undefined : kept[index];
    if (index === undefined || earlier === undefined) {
      opens.set(person, kept.length);
      kept.push(event);
    } else {
      repeats += 1;
      if (event.at < earlier.at) kept[index] = event;
    }
  }
  return { events: kept.filter((event) => event !== undefined), repeats };
}

/** What recording one event came to. */
export type EngagementOutcome =
  /** A first open or first click of this person's mail: the unique figures grew. */
  | 'first'
  /** A later click (total and link clicks grew), or a later open (nothing to add). */
  | 'repeat'
  /** The same SNS message once more: nothing changed. */
  | 'duplicate'
  /** No recipient record of that issue and subscriber (an unknown issue, or not a recipient). */
  | 'unknown'
  /** The subscriber was deleted: their events are dropped ([engagement.erase]). */
  | 'deleted'
  /**
   * Not recorded in this tracking mode ([engagement.modes]): every event in `off`; in `counts`,
   * an open of mail sent before mails carried a token, which could only be counted once per
   * person by storing who opened.
   */
  | 'untracked';

/** An issue's engagement figures ([engagement.report]). */
export interface EngagementFigures {
  /** Recipients with at least one open recorded (approximate: machine opens count). */
  readonly opened: number;
  /** Recipients with at least one click recorded. */
  readonly clicked: number;
  /** Every click recorded. */
  readonly clicks: number;
  /** The most clicked links, most first. */
  readonly links: readonly LinkClicks[];
  /**
   * Opens and clicks per hour (UTC), oldest first, only hours with some: `opened` counts
   * first opens (summing to `opened`), `clicks` every click (summing to `clicks`).
   */
  readonly hours: readonly HourFigures[];
}

/** What one hour of an issue's life brought ([engagement.hours]). */
export interface HourFigures {
  /** The hour's start, ISO 8601 UTC (`2026-11-28T10:00:00.000Z`). */
  readonly hour: string;
  readonly opened: number;
  readonly clicks: number;
}

/**
 * The UTC hour an event's time falls in, as `YYYY-MM-DDTHH`: the key of its hour's counters.
 * SES's times are ISO 8601, with a zone; one that does not parse keeps its own first 13
 * characters rather than failing the event.
 */
export function hourOf(at: string): string {
  const time = Date.parse(at);
  return Number.isNaN(time) ? at.slice(0, 13) : new Date(time).toISOString().slice(0, 13);
}

export interface LinkClicks {
  readonly url: string;
  readonly clicks: number;
}

/** Links a report lists at most. */
export const TOP_LINKS = 10;

/** A share of `sent` as a percentage with one decimal (0 when nothing was sent). */
export function rateOf(count: number, sent: number): number {
  return sent > 0 ? Math.round((count / sent) * 1000) / 10 : 0;
}

/** The most clicked links first; equal counts by address, so the order is stable. */
export function topLinks(links: readonly LinkClicks[], limit = TOP_LINKS): LinkClicks[] {
  return [...links]
    .sort((a, b) => b.clicks - a.clicks || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
    .slice(0, limit);
}
