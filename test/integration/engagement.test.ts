/**
 * Opens and clicks over a real DynamoDB Local table: the tags and configuration set campaign
 * mail goes out with in each tracking mode, and the recorder's rules (first opens and clicks
 * count once per person, SNS duplicates once, late and unknown events, a deleted subscriber's
 * events, a burst), read back through the report as the operator reads it.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { readEngagementEvent } from '../../shared/adapters/mail/ses-engagement-event.ts';
import type { EngagementStore } from '../../shared/adapters/store/engagement-store-port.ts';
import type { TrackingMode } from '../../shared/domain/engagement/engagement.ts';
import { DependencyError, isNewsletterError } from '../../shared/domain/errors.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import type { EngagementMessage } from '../../shared/operations/campaign/record-engagement.ts';
import { testNewsletter } from '../../shared/operations/campaign/test-send.ts';
import { deleteSubscriber } from '../../shared/operations/delete-subscriber.ts';
import { type CampaignWorld, campaignWorld, started } from '../support/campaign-world.ts';
import {
  type EventOptions,
  engagementMessage,
  issueReport,
  recordBatch,
  sentIssue as sendIssue,
  track,
} from '../support/engagement-events.ts';

let world: CampaignWorld;

beforeEach(async () => {
  world = await campaignWorld();
});

const sentIssue = (count: number, html?: string) => sendIssue(world, count, html);
const message = (
  kind: 'open' | 'click',
  newsletter: number | string,
  subscriber: number | string,
  options: EventOptions = {},
): EngagementMessage => engagementMessage(world, kind, newsletter, subscriber, options);
const record = (messages: EngagementMessage[], engagement: EngagementStore = world.engagement) =>
  recordBatch(world, messages, engagement);
const report = (id: number, tracking: TrackingMode = 'counts') => issueReport(world, id, tracking);

describe('[engagement.tags] [engagement.tracking] what campaign mail goes out with', () => {
  it('counts (the default): tracked, tagged with the issue, run and recipient ids and a token of its own', async () => {
    const { id, readers } = await sentIssue(2);
    expect(world.ses.mails).toHaveLength(2);
    for (const mail of world.ses.mails) {
      const reader = readers.find((each) => each.email === mail.to);
      expect(mail.track).toBe(true);
      expect(mail.tags).toEqual({
        newsletter: String(id),
        run: '1',
        subscriber: String(reader?.id),
        mail: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      });
      // SES's tag values: letters, digits, `_` and `-` only.
      for (const value of Object.values(mail.tags ?? {})) expect(value).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    // [engagement.mail-token] every mail its own, and stored nowhere with the recipient.
    const tokens = world.ses.mails.map((mail) => mail.tags?.mail);
    expect(new Set(tokens).size).toBe(2);
    for (const reader of readers) {
      const held = await world.campaigns.getRecipient(
        { newsletterId: id, legacy: false },
        reader.id,
      );
      expect(JSON.stringify(held)).not.toMatch(new RegExp(tokens.join('|')));
    }
  });

  it('[engagement.modes] off: SES is told not to track (the mail asks for no tracked set)', async () => {
    world.current.settings = {
      ...world.current.settings,
      campaign: { ...world.current.settings.campaign, tracking: 'off' },
    };
    await sentIssue(1);
    expect(world.ses.mails[0]?.track).toBe(false);
  });

  it('[engagement.no-track] the unsubscribe and web-version links carry ses:no-track, others not', async () => {
    const readers = await world.subscribe(1);
    const issue = await world.issue({
      html: '<p><a href="https://example.org/a">A</a> <a href="{unsubscription_url}">Leave</a></p>',
      private: false,
    });
    await started(world, issue.id);
    await world.drain();
    const html = world.ses.mails[0]?.html ?? '';
    expect(readers).toHaveLength(1);
    const anchors = html.match(/<a\b[^>]*>/g) ?? [];
    const unsubscribe = anchors.filter((tag) => tag.includes('/unsubscribe'));
    const web = anchors.filter((tag) => tag.includes(`/newsletters/${issue.id}/view`));
    // The operator's own link and the footer's web-version link; no footer unsubscribe line,
    // since the content has its own.
    expect(unsubscribe).toHaveLength(1);
    expect(web).toHaveLength(1);
    for (const tag of [...unsubscribe, ...web]) expect(tag).toContain(' ses:no-track');
    const other = anchors.filter((tag) => tag.includes('https://example.org/a'));
    expect(other).toHaveLength(1);
    expect(other[0]).not.toContain('ses:no-track');
  });

  it('[engagement.untracked-mail] a test send is not tracked and names no recipient', async () => {
    const issue = await world.issue();
    const result = await testNewsletter(world.deps, issue.id, ['ops@example.com']);
    expect(isNewsletterError(result)).toBe(false);
    await world.drain();
    const mail = world.ses.mails.at(-1);
    expect(mail?.to).toBe('ops@example.com');
    expect(mail?.track).toBeFalsy();
    expect(mail?.tags).not.toHaveProperty('subscriber');
  });
});

describe('[engagement.recording] opens and clicks per issue, per link and per recipient', () => {
  it('[engagement.report] counts unique opens and clicks, total and per-link clicks; first times on the record', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(3);
    const [ada, bob] = readers as [SubscriberRecord, SubscriberRecord];
    const t = (minutes: number) => new Date(Date.UTC(2026, 10, 22, 10, minutes)).toISOString();
    const outcome = await record([
      message('open', id, ada.id, { at: t(1) }),
      message('open', id, ada.id, { at: t(5) }),
      message('click', id, ada.id, { at: t(2), link: 'https://example.org/a' }),
      message('click', id, ada.id, { at: t(3), link: 'https://example.org/a' }),
      message('click', id, bob.id, { at: t(4), link: 'https://example.org/b' }),
      message('open', id, bob.id, { at: t(4) }),
    ]);
    expect(outcome.failed).toEqual([]);
    expect(outcome.counts).toMatchObject({ first: 4, repeat: 1, duplicate: 1 });
    const { report: read, rows } = await report(id, 'individual');
    expect(read.engagement).toMatchObject({
      opened: 2,
      clicked: 2,
      clicks: 3,
      opened_rate: 66.7,
      clicked_rate: 66.7,
      links: [
        { url: 'https://example.org/a', clicks: 2 },
        { url: 'https://example.org/b', clicks: 1 },
      ],
    });
    // [engagement.approximate-opens] every report says what opens are worth.
    expect(read.engagement?.note).toMatch(/approximate.*Apple Mail Privacy Protection.*Clicks/s);
    const row = rows.find((each) => each.subscriber_id === ada.id);
    expect(row).toMatchObject({ opened_at: t(1), clicked_at: t(2) });
  });

  it('[engagement.modes] counts: each person once, though nothing of theirs is stored or shown', async () => {
    const { id, readers } = await sentIssue(1);
    const reader = readers[0] as SubscriberRecord;
    await record([message('open', id, reader.id), message('click', id, reader.id)]);
    const { report: read, rows } = await report(id, 'counts');
    expect(read.engagement).toMatchObject({ opened: 1, clicked: 1, tracking: 'counts' });
    expect(rows[0]).not.toHaveProperty('opened_at');
    expect(rows[0]).not.toHaveProperty('clicked_at');
    // Even a report read as `individual` has nothing of them: nothing was stored.
    expect((await report(id, 'individual')).rows[0]).not.toHaveProperty('opened_at');
    // Still only once, in a later batch: the mail's token says so, not the person.
    await record([message('open', id, reader.id), message('click', id, reader.id)]);
    expect((await report(id)).report.engagement).toMatchObject({
      opened: 1,
      clicked: 1,
      clicks: 2,
    });
  });
});

describe('[engagement.dedupe] an event SNS repeats counts once; late events', () => {
  it('the same SNS message in one batch and in a later one adds nothing', async () => {
    const { id, readers } = await sentIssue(1);
    const reader = readers[0] as SubscriberRecord;
    const click = message('click', id, reader.id, { snsId: 'sns-1' });
    const open = message('open', id, reader.id, { snsId: 'sns-2' });
    const first = await record([click, click, open, open]);
    expect(first.counts).toMatchObject({ first: 2, duplicate: 2 });
    const again = await record([click, open]);
    expect(again.counts).toMatchObject({ duplicate: 1, repeat: 1, first: 0 });
    expect((await report(id)).report.engagement).toMatchObject({
      opened: 1,
      clicked: 1,
      clicks: 1,
    });
  });

  it('an earlier open that arrives late moves the first open back; one long after still counts', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(2);
    const [ada, bob] = readers as [SubscriberRecord, SubscriberRecord];
    await record([message('open', id, ada.id, { at: '2026-11-22T10:30:00.000Z' })]);
    await record([message('open', id, ada.id, { at: '2026-11-22T10:05:00.000Z' })]);
    // Weeks later (a reader finds it in the archive of their inbox).
    await record([message('open', id, bob.id, { at: '2026-12-20T08:00:00.000Z' })]);
    const { report: read, rows } = await report(id, 'individual');
    expect(read.engagement?.opened).toBe(2);
    expect(rows.find((row) => row.subscriber_id === ada.id)?.opened_at).toBe(
      '2026-11-22T10:05:00.000Z',
    );
  });
});

describe('[engagement.dropped] events that cannot be tied to a recipient', () => {
  it('an unknown issue or subscriber is dropped and counted; an event without ids is ignored', async () => {
    const { id, readers } = await sentIssue(1);
    const outcome = await record([
      message('open', 999_999, (readers[0] as SubscriberRecord).id),
      message('click', id, 999_999),
      message('open', 'not-an-id', 3),
    ]);
    expect(outcome.counts).toMatchObject({ unknown: 2, ignored: 1, first: 0 });
    expect(outcome.failed).toEqual([]);
    expect(world.metrics.counts.EngagementDropped).toBe(2);
    expect((await report(id)).report.engagement).toMatchObject({ opened: 0, clicked: 0 });
  });

  it('a message that is no SNS notification is logged and dropped, never retried', async () => {
    const outcome = await record([
      { messageId: 'm-1', reading: readEngagementEvent('{"Type":"Notification"}') },
      { messageId: 'm-2', reading: readEngagementEvent('not json') },
    ]);
    expect(outcome).toMatchObject({ failed: [], counts: { malformed: 2 } });
    expect(world.log.lines.filter((line) => line.event === 'engagement_malformed')).toHaveLength(2);
  });

  it('an event the table refuses now is handed back for the queue to deliver again', async () => {
    const { id, readers } = await sentIssue(2);
    const [ada, bob] = readers as [SubscriberRecord, SubscriberRecord];
    const failing: EngagementStore = {
      record: async (event, options) => {
        if (event.subscriberId === ada.id) throw new Error('DynamoDB away');
        return world.engagement.record(event, options);
      },
      figures: (newsletterId) => world.engagement.figures(newsletterId),
      erase: (subscriberId) => world.engagement.erase(subscriberId),
      markPersonal: () => world.engagement.markPersonal(),
    };
    const lost = message('open', id, ada.id);
    const outcome = await record([lost, message('open', id, bob.id)], failing);
    expect(outcome.failed).toEqual([lost.messageId]);
    expect((await report(id)).report.engagement?.opened).toBe(1);
  });
});

describe('[engagement.erase] deleting a subscriber erases their events', () => {
  it('their first open and click go, later events are dropped; the issue’s counts stay', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(2);
    const [ada, bob] = readers as [SubscriberRecord, SubscriberRecord];
    await record([message('open', id, ada.id), message('click', id, ada.id)]);
    await record([message('open', id, bob.id)]);
    const deps = {
      store: world.store,
      settings: world.deps.settings,
      now: world.deps.now,
      log: world.log,
      metrics: world.metrics,
      engagement: world.engagement,
    };
    const deleted = await deleteSubscriber(deps, { email: ada.email });
    expect(deleted).toEqual({ deleted: true, email: ada.email });
    const recipient = await world.campaigns.getRecipient(
      { newsletterId: id, legacy: false },
      ada.id,
    );
    expect(recipient?.opened_at).toBeUndefined();
    expect(recipient?.clicked_at).toBeUndefined();
    const late = await record([message('click', id, ada.id), message('open', id, ada.id)]);
    expect(late.counts).toMatchObject({ deleted: 2, first: 0 });
    const { report: read, rows } = await report(id, 'individual');
    expect(rows.find((row) => row.subscriber_id === ada.id)).not.toHaveProperty('opened_at');
    expect(rows.find((row) => row.subscriber_id === bob.id)).toHaveProperty('opened_at');
    // Figures are counts of people, not people: they stay.
    expect(read.engagement).toMatchObject({ opened: 2, clicked: 1 });
  });

  it('an outage during the erasure leaves the subscriber there, and the retry erases and deletes', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(1);
    const [ada] = readers as [SubscriberRecord];
    await record([message('open', id, ada.id)]);
    const away = new DependencyError('dynamodb');
    let refusals = 1;
    const deps = {
      store: world.store,
      settings: world.deps.settings,
      now: world.deps.now,
      log: world.log,
      metrics: world.metrics,
      engagement: {
        ...world.engagement,
        erase: async (subscriberId: number) => {
          if (refusals > 0) {
            refusals -= 1;
            throw away;
          }
          return world.engagement.erase(subscriberId);
        },
      },
    };
    await expect(deleteSubscriber(deps, { email: ada.email })).rejects.toBe(away);
    expect((await world.store.getSubscriber(ada.email))?.id).toBe(ada.id);
    expect(await deleteSubscriber(deps, { email: ada.email })).toEqual({
      deleted: true,
      email: ada.email,
    });
    expect(await world.store.getSubscriber(ada.email)).toBeUndefined();
    expect(
      (await world.campaigns.getRecipient({ newsletterId: id, legacy: false }, ada.id))?.opened_at,
    ).toBeUndefined();
  });
});

describe('[engagement.batch] a burst', () => {
  it('282 events (repeats, SNS duplicates, two links) in batches of 100 come to exact figures', async () => {
    const { id, readers } = await sentIssue(50);
    const messages: EngagementMessage[] = [];
    readers.forEach((reader, index) => {
      // Everyone opens three times; every second reader clicks A twice and B once.
      for (let n = 0; n < 3; n += 1) messages.push(message('open', id, reader.id));
      if (index % 2 === 0) {
        messages.push(message('click', id, reader.id, { link: 'https://example.org/a' }));
        messages.push(message('click', id, reader.id, { link: 'https://example.org/a' }));
        messages.push(message('click', id, reader.id, { link: 'https://example.org/b' }));
      }
    });
    // SNS delivers a quarter of them twice.
    const burst = [...messages, ...messages.filter((_, index) => index % 4 === 0)];
    expect(burst.length).toBe(282);
    for (let start = 0; start < burst.length; start += 100)
      expect((await record(burst.slice(start, start + 100))).failed).toEqual([]);
    expect((await report(id)).report.engagement).toMatchObject({
      opened: 50,
      clicked: 25,
      clicks: 75,
      links: [
        { url: 'https://example.org/a', clicks: 50 },
        { url: 'https://example.org/b', clicks: 25 },
      ],
    });
  });
});

describe('[engagement.hours] opens and clicks per hour, for the chart', () => {
  const hourSums = (hours: readonly { opened: number; clicks: number }[]) =>
    hours.reduce(
      (sum, hour) => ({ opened: sum.opened + hour.opened, clicks: sum.clicks + hour.clicks }),
      { opened: 0, clicks: 0 },
    );

  it('counts first opens and every click in the UTC hour SES saw them, oldest hour first', async () => {
    const { id, readers } = await sentIssue(2);
    const [ada, bob] = readers as [SubscriberRecord, SubscriberRecord];
    await record([
      message('open', id, ada.id, { at: '2026-11-22T10:01:00.000Z' }),
      message('click', id, ada.id, { at: '2026-11-22T10:02:00.000Z' }),
      // A zone other than UTC: 12:30 in +01:00 is 11:30 UTC.
      message('click', id, ada.id, { at: '2026-11-22T12:30:00+01:00' }),
      message('open', id, bob.id, { at: '2026-11-22T11:10:00.000Z' }),
      // A later open of ada's: not a first open, in no hour.
      message('open', id, ada.id, { at: '2026-11-22T13:00:00.000Z' }),
    ]);
    const { engagement } = (await report(id)).report;
    expect(engagement?.hours).toEqual([
      { hour: '2026-11-22T10:00:00.000Z', opened: 1, clicks: 1 },
      { hour: '2026-11-22T11:00:00.000Z', opened: 1, clicks: 1 },
    ]);
  });

  it('redeliveries and batches racing each other count once per hour, as the totals', async () => {
    const { id, readers } = await sentIssue(20);
    const batch = readers.flatMap((reader, index) => [
      message('open', id, reader.id, {
        at: `2026-11-22T${String(8 + (index % 3)).padStart(2, '0')}:15:00.000Z`,
        snsId: `open-${reader.id}`,
      }),
      message('click', id, reader.id, {
        at: `2026-11-22T${String(9 + (index % 2)).padStart(2, '0')}:45:00.000Z`,
        snsId: `click-${reader.id}`,
      }),
    ]);
    // The same batch twice at once (two recorder invocations), then again later (a retry).
    await Promise.all([record(batch), record(batch)]);
    await record(batch);
    const { engagement } = (await report(id)).report;
    expect(engagement).toMatchObject({ opened: 20, clicks: 20 });
    expect(engagement?.hours).toEqual([
      { hour: '2026-11-22T08:00:00.000Z', opened: 7, clicks: 0 },
      { hour: '2026-11-22T09:00:00.000Z', opened: 7, clicks: 10 },
      { hour: '2026-11-22T10:00:00.000Z', opened: 6, clicks: 10 },
    ]);
    expect(hourSums(engagement?.hours ?? [])).toEqual({ opened: 20, clicks: 20 });
  });

  it('an earlier open arriving late moves its count to the earlier hour, once however often it comes', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(1);
    const reader = readers[0] as SubscriberRecord;
    await record([message('open', id, reader.id, { at: '2026-11-22T11:30:00.000Z' })]);
    const earlier = message('open', id, reader.id, { at: '2026-11-22T09:05:00.000Z' });
    await record([earlier]);
    await record([earlier]);
    // Earlier still, in the same hour: the time moves, the hour's count does not.
    await record([message('open', id, reader.id, { at: '2026-11-22T09:01:00.000Z' })]);
    const { report: read, rows } = await report(id, 'individual');
    expect(read.engagement?.hours).toEqual([
      { hour: '2026-11-22T09:00:00.000Z', opened: 1, clicks: 0 },
    ]);
    expect(read.engagement?.opened).toBe(1);
    expect(rows[0]?.opened_at).toBe('2026-11-22T09:01:00.000Z');
  });
});
