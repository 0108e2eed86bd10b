/**
 * What each tracking mode keeps of a person ([engagement.modes], issue 47), over DynamoDB
 * Local: in `counts` the recorder stores nothing that names anyone, yet counts each person
 * once; in `off` it records nothing; mail sent before mails carried a token; and what a
 * subscriber's history shows in each ([v2.subscriber-issues]). The switch between them:
 * engagement-switch.test.ts.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoSubscriberDirectory } from '../../shared/adapters/store/dynamo-subscriber-directory.ts';
import { DynamoSubscriberHistory } from '../../shared/adapters/store/dynamo-subscriber-history.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import { v2SubscriberIssues } from '../../shared/operations/v2/v2-subscriber-issues.ts';
import { type CampaignWorld, campaignWorld } from '../support/campaign-world.ts';
import {
  engagementMessage,
  issueReport,
  recordBatch,
  sentIssue,
  track,
} from '../support/engagement-events.ts';

let world: CampaignWorld;

beforeEach(async () => {
  world = await campaignWorld();
});

type Item = Record<string, unknown>;

async function scan(): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await world.table.client.send(
      new ScanCommand({
        TableName: world.table.name,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

const recordOf = async (id: number, subscriber: number) =>
  world.campaigns.getRecipient({ newsletterId: id, legacy: false }, subscriber);

const engagedOf = async (subscriber: number): Promise<Item | undefined> =>
  (await scan()).find(
    (item) => item.pk === keys.engaged(subscriber).pk && item.sk === keys.engaged(subscriber).sk,
  );

/** A person's issues as v2 `GET /subscribers/{id}/issues` answers them. */
async function historyOf(subscriber: number): Promise<Item[]> {
  const page = await v2SubscriberIssues(
    {
      store: world.store,
      settings: world.deps.settings,
      now: world.deps.now,
      log: world.log,
      directory: new DynamoSubscriberDirectory(world.table.client, world.table.name),
      history: new DynamoSubscriberHistory(world.table.client, world.table.name),
    },
    String(subscriber),
    undefined,
  );
  if (isNewsletterError(page)) throw new Error(page.message);
  return page.issues as unknown as Item[];
}

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
