/**
 * A switch away from `individual` ([engagement.switch]), over DynamoDB Local: reads stop
 * showing per-person opens and clicks at once, and the eraser, once no recorder can still write
 * per person, erases every one stored (and the lists of engaged issues), in runs that take up
 * where the last stopped; the figures stay.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoEngagementEraser } from '../../shared/adapters/store/dynamo-engagement-eraser.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import { erasePersonalEngagement } from '../../shared/operations/campaign/erase-personal-engagement.ts';
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

/**
 * The eraser as its function runs it, on the world's clock, `settle` 1 s; `tick`: how far the
 * clock moves each time the eraser looks at it (a run's work takes time).
 */
const erase = (options: { budgetMs?: number; tick?: number } = {}) =>
  erasePersonalEngagement({
    settings: world.deps.settings,
    now: () => {
      world.clock.t += options.tick ?? 0;
      return new Date(world.clock.t);
    },
    log: world.log,
    eraser: new DynamoEngagementEraser(world.table.client, world.table.name),
    settleMs: 1_000,
    budgetMs: options.budgetMs ?? 60_000,
  });

describe('[engagement.switch] from individual to counts', () => {
  it('reads stop showing per-person times at once; the eraser removes them; the figures stay', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(world, 3);
    const [ada, bob, cy] = readers as [SubscriberRecord, SubscriberRecord, SubscriberRecord];
    await recordBatch(world, [
      engagementMessage(world, 'open', id, ada.id),
      engagementMessage(world, 'click', id, ada.id),
      engagementMessage(world, 'open', id, bob.id),
    ]);
    // A record as the recorder before this design left it: a click id per click.
    await world.table.client.send(
      new UpdateCommand({
        TableName: world.table.name,
        Key: keys.recipient(id, cy.id),
        UpdateExpression: 'SET clicked_at = :at, click_ids = :ids',
        ExpressionAttributeValues: {
          ':at': '2026-11-22T09:00:00.000Z',
          ':ids': new Set(['x', 'y']),
        },
      }),
    );
    expect((await historyOf(ada.id))[0]).toHaveProperty('opened_at');
    expect(await engagedOf(ada.id)).toHaveProperty('issues');
    const figures = (await issueReport(world, id)).report.engagement;

    track(world, 'counts');
    expect((await historyOf(ada.id))[0]).not.toHaveProperty('opened_at');
    expect((await historyOf(ada.id))[0]).not.toHaveProperty('clicked_at');
    // The eraser waits until no recorder can still hold `individual`, then erases.
    expect(await erase()).toEqual({ status: 'waiting', records: 0 });
    world.clock.t += 500;
    expect(await erase()).toEqual({ status: 'waiting', records: 0 });
    world.clock.t += 1_000;
    expect(await erase()).toEqual({ status: 'erased', records: 3 });
    for (const reader of [ada, bob, cy]) {
      const held = await recordOf(id, reader.id);
      expect(held?.state).toBe('sent');
      expect(held).not.toHaveProperty('opened_at');
      expect(held).not.toHaveProperty('clicked_at');
      expect((await engagedOf(reader.id))?.issues).toBeUndefined();
    }
    expect((await scan()).filter((item) => 'click_ids' in item)).toEqual([]);
    expect((await issueReport(world, id)).report.engagement).toEqual(figures);
    expect(await erase()).toEqual({ status: 'clean', records: 0 });
    // From now on each person still counts once, by the mail's token.
    await recordBatch(world, [engagementMessage(world, 'open', id, ada.id)]);
    expect((await issueReport(world, id)).report.engagement?.opened).toBe(2);
  });

  it('a switch back to individual stops an erasure; away again, it starts anew and ends clean', async () => {
    track(world, 'individual');
    const { id, readers } = await sentIssue(world, 2);
    await recordBatch(
      world,
      readers.map((reader) => engagementMessage(world, 'open', id, reader.id)),
    );
    track(world, 'counts');
    await erase();
    world.clock.t += 2_000;
    // Time for one page only: the walk is saved where it stopped.
    expect((await erase({ budgetMs: 1_500, tick: 1_000 })).status).toBe('erasing');
    const eraser = new DynamoEngagementEraser(world.table.client, world.table.name);
    expect((await eraser.state()).walk).toMatchObject({ issue: id, part: 1 });
    track(world, 'individual');
    expect(await erase()).toEqual({ status: 'individual', records: 0 });
    expect((await eraser.state()).walk).toBeUndefined();
    track(world, 'counts');
    expect((await erase()).status).toBe('waiting');
    world.clock.t += 2_000;
    expect(await erase()).toEqual({ status: 'erased', records: 2 });
    for (const reader of readers)
      expect(await recordOf(id, reader.id)).not.toHaveProperty('opened_at');
  });

  it('a table from before this design (per-person times stored in counts too) is erased once', async () => {
    const { id, readers } = await sentIssue(world, 1);
    const reader = readers[0] as SubscriberRecord;
    await world.table.client.send(
      new UpdateCommand({
        TableName: world.table.name,
        Key: keys.recipient(id, reader.id),
        UpdateExpression: 'SET opened_at = :at',
        ExpressionAttributeValues: { ':at': '2026-11-22T09:00:00.000Z' },
      }),
    );
    await world.table.client.send(
      new PutCommand({
        TableName: world.table.name,
        Item: { ...keys.engaged(reader.id), issues: new Set([id]) },
      }),
    );
    await erase();
    world.clock.t += 2_000;
    expect(await erase()).toEqual({ status: 'erased', records: 1 });
    expect(await recordOf(id, reader.id)).not.toHaveProperty('opened_at');
    expect((await engagedOf(reader.id))?.issues).toBeUndefined();
  });
});
