import { beforeEach, describe, expect, it } from 'vitest';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import { type CampaignWorld, campaignWorld } from '../support/campaign-world.ts';
import {
  type EngagementReads,
  engagementMessage,
  engagementReads,
  issueReport,
  recordBatch,
  sentIssue,
  track,
} from '../support/engagement-events.ts';

let world: CampaignWorld;

beforeEach(async () => {
  world = await campaignWorld();
  ({ scan, recordOf, engagedOf, historyOf } = engagementReads(world));
});

let scan: EngagementReads['scan'];
let recordOf: EngagementReads['recordOf'];
let engagedOf: EngagementReads['engagedOf'];
let historyOf: EngagementReads['historyOf'];

describe('[engagement.modes] counts: nothing stored names a person', () => {
  it('no item the recorder writes holds an id, an address or a message id; each person still counts once', async () => {
    const { id, readers } = await sentIssue(world, 2);
    const [ada, bob] = readers as [SubscriberRecord, SubscriberRecord];
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 10, minute)).toISOString();
    const batch = () => [
      engagementMessage(world, 'open', id, ada.id, { at: at(5) }),
      engagementMessage(world, 'click', id, ada.id, { at: at(6) }),
      engagementMessage(world, 'open', id, bob.id, { at: at(7) }),
    ];
    expect((await recordBatch(world, batch())).counts).toMatchObject({ first: 3 });
    // Again later, and an earlier open of ada's: once per person all the same.
    await recordBatch(world, [
      ...batch(),
      engagementMessage(world, 'open', id, ada.id, { at: at(1) }),
    ]);
    expect((await issueReport(world, id)).report.engagement).toMatchObject({
      opened: 2,
      clicked: 1,
      clicks: 2,
    });
    for (const reader of [ada, bob]) {
      const held = await recordOf(id, reader.id);
      expect(held).toBeDefined();
      expect(held).not.toHaveProperty('opened_at');
      expect(held).not.toHaveProperty('clicked_at');
      expect(await engagedOf(reader.id)).toBeUndefined();
    }
    const named = new Set(
      [ada, bob]
        .flatMap((reader) => [String(reader.id), reader.email])
        .concat(world.ses.mails.map((mail) => mail.messageId)),
    );
    const written = (await scan()).filter((item) =>
      /^(MAIL|CLICK|ENGAGEMENT)/.test(String(item.pk)),
    );
    expect(written.length).toBeGreaterThan(0);
    // Times, counts and the links' addresses: nothing else.
    const allowed = ['pk', 'sk', 'opened_at', 'clicked_at', 'expires_at'];
    for (const item of written) {
      for (const name of Object.keys(item))
        expect([...allowed, 'opened', 'clicked', 'clicks', 'url']).toContain(name);
      for (const value of Object.values(item))
        if (typeof value === 'string') expect(named.has(value)).toBe(false);
    }
    // The tokens the mails carried are on no item but their own.
    const tokens = world.ses.mails.map((mail) => mail.tags?.mail ?? '');
    for (const item of await scan())
      if (!String(item.pk).startsWith('MAIL#'))
        for (const token of tokens) expect(JSON.stringify(item)).not.toContain(token);
  });
});

describe('[engagement.modes] off', () => {
  it('records nothing that still comes (mail sent while tracking was on)', async () => {
    const { id, readers } = await sentIssue(world, 1);
    const reader = readers[0] as SubscriberRecord;
    track(world, 'off');
    const outcome = await recordBatch(world, [
      engagementMessage(world, 'open', id, reader.id),
      engagementMessage(world, 'click', id, reader.id),
    ]);
    expect(outcome.counts).toMatchObject({ untracked: 2, first: 0 });
    expect(outcome.failed).toEqual([]);
    expect((await issueReport(world, id)).report.engagement).toMatchObject({
      opened: 0,
      clicked: 0,
      clicks: 0,
    });
    expect(
      (await scan()).filter((item) => /^(MAIL|CLICK|ENGAGEMENT)/.test(String(item.pk))),
    ).toEqual([]);
  });
});

describe('[engagement.mail-token] mail sent before mails carried a token', () => {
  it('counts: its clicks count, its opens and clickers cannot be told once per person without storing who', async () => {
    const { id, readers } = await sentIssue(world, 1);
    const reader = readers[0] as SubscriberRecord;
    const outcome = await recordBatch(world, [
      engagementMessage(world, 'open', id, reader.id, { legacy: true }),
      engagementMessage(world, 'click', id, reader.id, { legacy: true }),
    ]);
    expect(outcome.counts).toMatchObject({ untracked: 1, repeat: 1 });
    expect((await issueReport(world, id)).report.engagement).toMatchObject({
      opened: 0,
      clicked: 0,
      clicks: 1,
    });
    expect(await recordOf(id, reader.id)).not.toHaveProperty('opened_at');
  });

  it('individual: its record keeps the first times and counts each person once, as before', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(world, 1);
    const reader = readers[0] as SubscriberRecord;
    const old = { legacy: true, at: '2026-11-22T10:05:00.000Z' } as const;
    await recordBatch(world, [engagementMessage(world, 'open', id, reader.id, old)]);
    await recordBatch(world, [
      engagementMessage(world, 'open', id, reader.id, old),
      engagementMessage(world, 'click', id, reader.id, old),
      engagementMessage(world, 'click', id, reader.id, old),
    ]);
    expect((await issueReport(world, id)).report.engagement).toMatchObject({
      opened: 1,
      clicked: 1,
      clicks: 2,
    });
    expect(await recordOf(id, reader.id)).toMatchObject({
      opened_at: old.at,
      clicked_at: old.at,
    });
  });
});

describe("[v2.subscriber-issues] a subscriber's issues show opens and clicks in individual only", () => {
  it('the same records: first open and click in individual, none in counts or off', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(world, 1);
    const reader = readers[0] as SubscriberRecord;
    await recordBatch(world, [
      engagementMessage(world, 'open', id, reader.id),
      engagementMessage(world, 'click', id, reader.id),
    ]);
    expect((await historyOf(reader.id))[0]).toMatchObject({
      id,
      outcome: 'sent',
      opened_at: expect.any(String),
      clicked_at: expect.any(String),
    });
    for (const mode of ['counts', 'off'] as const) {
      track(world, mode);
      const [issue] = await historyOf(reader.id);
      expect(issue).toMatchObject({ id, outcome: 'sent' });
      expect(issue).not.toHaveProperty('opened_at');
      expect(issue).not.toHaveProperty('clicked_at');
    }
  });
});
