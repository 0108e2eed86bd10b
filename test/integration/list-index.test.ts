/**
 * The list index ([campaign.plan]): one entry per confirmed subscriber and list, kept in the
 * same write as every subscriber change, so that planning reads exactly the recipients.
 */
import { PassThrough } from 'node:stream';
import { DeleteCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reindexLists } from '../../cli/subscribers/reindex-lists.ts';
import { KEY, keys } from '../../shared/adapters/store/table-design.ts';
import { type CampaignWorld, campaignWorld } from '../support/campaign-world.ts';
import { applyChange, subscriberChange } from '../support/subscriber-changes.ts';

/** The index as stored: `list:id` for every entry, with the address it holds. */
async function indexEntries(world: CampaignWorld): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  let start: Record<string, unknown> | undefined;
  do {
    const output = await world.table.client.send(
      new ScanCommand({
        TableName: world.table.name,
        FilterExpression: 'begins_with(#pk, :members)',
        ExpressionAttributeNames: { '#pk': KEY.partition },
        ExpressionAttributeValues: { ':members': 'MEMBERS#' },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of output.Items ?? []) {
      const list = String(item[KEY.partition]).split('#')[1];
      entries.set(`${list}:${Number(item[KEY.sort])}`, String(item.email));
    }
    start = output.LastEvaluatedKey;
  } while (start);
  return entries;
}

/** What the index must hold for these subscribers as stored. */
async function expectedEntries(
  world: CampaignWorld,
  emails: readonly string[],
): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  for (const email of emails) {
    const record = await world.store.getSubscriber(email);
    if (record?.status !== 'C') continue;
    for (const list of new Set(record.lists)) entries.set(`${list}:${record.id}`, record.email);
  }
  return entries;
}

describe('[campaign.plan] the list index', () => {
  it('holds exactly the confirmed subscribers of each list after concurrent changes of lists, status and deletions', async () => {
    const world = await campaignWorld();
    const people = [
      ...(await world.subscribe(3, { lists: [1, 2] })),
      ...(await world.subscribe(2, { lists: [2], status: 'S' })),
      ...(await world.subscribe(2, { lists: [3] })),
    ];
    const emails = people.map((person) => person.email);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: emails.length - 1 }), subscriberChange()), {
          minLength: 1,
          maxLength: 12,
        }),
        async (changes) => {
          // All at once: several changes of the same subscriber race, and one at a time wins.
          await Promise.all(
            changes.map(([who, what]) => applyChange(world, emails[who] as string, what)),
          );
          expect(await indexEntries(world)).toEqual(await expectedEntries(world, emails));
        },
      ),
      { numRuns: 15 },
    );
  });

  it('is built for subscribers written before it by `subscribers reindex`, which then marks it complete', async () => {
    const world = await campaignWorld();
    const people = await world.subscribe(4, { lists: [1, 2] });
    await world.subscribe(1, { lists: [1], status: 'U' });
    // As an older version left them: no index entries, no mark.
    for (const entry of (await indexEntries(world)).keys()) {
      const [list, id] = entry.split(':').map(Number) as [number, number];
      await world.table.client.send(
        new DeleteCommand({ TableName: world.table.name, Key: keys.member(list, id) }),
      );
    }
    await world.table.client.send(
      new UpdateCommand({
        TableName: world.table.name,
        Key: keys.counter('subscriber'),
        UpdateExpression: 'REMOVE list_index',
      }),
    );
    expect(await world.campaigns.listIndexReady()).toBe(false);
    const count = await reindexLists(world.store, { stderr: new PassThrough() });
    expect(count).toBe(5);
    expect(await world.campaigns.listIndexReady()).toBe(true);
    expect(await indexEntries(world)).toEqual(
      await expectedEntries(
        world,
        people.map((person) => person.email),
      ),
    );
  });
});
