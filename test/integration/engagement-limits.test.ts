/**
 * Opens and clicks against DynamoDB's limits (issue 46, "bounded items"), over DynamoDB Local:
 * no item the recorder writes grows with the clicks of a mail (a script clicking its own link
 * used to fill its recipient record towards the 400 KB item limit), and many recorders at once
 * on one issue lose no count when DynamoDB cancels transactions that name an item another
 * holds (a strict DynamoDB front of the test's own, with a long hold so the recorders meet).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { startStrictDynamoDb } from '../../infra/local/stand-ins/strict-dynamodb.ts';
import { DynamoEngagementStore } from '../../shared/adapters/store/dynamo-engagement-store.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import { type CampaignWorld, campaignWorld } from '../support/campaign-world.ts';
import {
  engagementMessage,
  issueReport,
  recordBatch,
  sentIssue,
  track,
} from '../support/engagement-events.ts';
import { itemSize } from '../support/item-size.ts';
import { documentClient } from '../support/local-dynamo.ts';

let world: CampaignWorld;

beforeEach(async () => {
  world = await campaignWorld();
});

/** Every item of the table, by its key, with its size as DynamoDB counts it. */
async function sizes(): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await world.table.client.send(
      new ScanCommand({
        TableName: world.table.name,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) found.set(`${item.pk} ${item.sk}`, itemSize(item));
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

/** The sizes docs/storage.md ("Opens and clicks", "Item sizes") states, by key prefix. */
const BOUNDS: readonly [RegExp, number][] = [
  [/^MAIL#/, 150],
  [/^CLICK#/, 150],
  [/^ENGAGEMENT#\d+#\d+ totals$/, 100],
  [/^ENGAGEMENT#\d+#\d+ hour#/, 100],
  [/^ENGAGEMENT#\d+#\d+ link#/, 2_150],
];

describe('[engagement.bounded] a script clicking its own link', () => {
  it('1,000 clicks of one link grow no item: the record, the mail, the counters keep their size', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(world, 1);
    const reader = readers[0] as SubscriberRecord;
    const record = `RECIPIENTS#${id}#${reader.id % 8} ${String(reader.id).padStart(15, '0')}`;
    const before = (await sizes()).get(record) ?? 0;
    expect(before).toBeGreaterThan(0);
    const click = (minute: number) =>
      engagementMessage(world, 'click', id, reader.id, {
        at: new Date(Date.UTC(2026, 10, 22, 10, minute % 60)).toISOString(),
        link: 'https://example.org/a',
      });
    // The first click, and what every item weighs after it.
    expect((await recordBatch(world, [click(0)])).counts.first).toBe(1);
    const first = await sizes();
    const clicks = 1_000;
    for (let sent = 1; sent < clicks; sent += 100) {
      const batch = Array.from({ length: Math.min(100, clicks - sent) }, (_, n) => click(sent + n));
      expect((await recordBatch(world, batch)).failed).toEqual([]);
    }
    const after = await sizes();
    expect((await issueReport(world, id, 'individual')).report.engagement).toMatchObject({
      clicked: 1,
      clicks,
      links: [{ url: 'https://example.org/a', clicks }],
    });
    // The record holds the first click's time and nothing per click: the size after the first.
    expect(after.get(record)).toBe(first.get(record));
    // Its first open and click add at most 100 bytes to what the campaign wrote.
    expect((after.get(record) ?? 0) - before).toBeLessThanOrEqual(100);
    const mail = [...after.keys()].filter((key) => key.startsWith('MAIL#'));
    expect(mail).toHaveLength(1);
    expect(after.get(mail[0] as string)).toBe(first.get(mail[0] as string));
    // Every item within its stated bound; a counter's number only gains digits.
    for (const [key, size] of after) {
      const bound = BOUNDS.find(([pattern]) => pattern.test(key))?.[1];
      if (bound !== undefined) expect(size, key).toBeLessThanOrEqual(bound);
    }
    // One item per click, each the size of the first (it expires: TTL, no write).
    expect([...after.keys()].filter((key) => key.startsWith('CLICK#'))).toHaveLength(clicks);
  }, 120_000);
});

describe('[engagement.contention] many recorders at once on one issue', () => {
  it('50 recorders, each with an open and a click of the same link, lose no count when transactions conflict', async () => {
    const { id, readers } = await sentIssue(world, 50);
    const front = await startStrictDynamoDb({
      upstream: inject('dynamoLocalEndpoint'),
      holdMs: 100,
    });
    const store = new DynamoEngagementStore(documentClient(front.endpoint), world.table.name);
    const at = '2026-11-22T10:15:00.000Z';
    const outcomes = await Promise.all(
      readers.map((reader) =>
        recordBatch(
          world,
          [
            engagementMessage(world, 'open', id, reader.id, { at }),
            engagementMessage(world, 'click', id, reader.id, { at, link: 'https://example.org/a' }),
          ],
          store,
        ),
      ),
    );
    // DynamoDB cancelled some of them, as it does for transactions that meet on an item.
    const { conflicts, cancelledForConflict } = front.stats;
    await front.stop();
    expect(conflicts + cancelledForConflict).toBeGreaterThan(0);
    expect(outcomes.flatMap((outcome) => outcome.failed)).toEqual([]);
    const { engagement } = (await issueReport(world, id)).report;
    expect(engagement).toMatchObject({
      opened: 50,
      clicked: 50,
      clicks: 50,
      links: [{ url: 'https://example.org/a', clicks: 50 }],
      // [engagement.hours] the hours still sum to the totals.
      hours: [{ hour: '2026-11-22T10:00:00.000Z', opened: 50, clicks: 50 }],
    });
  }, 120_000);
});
