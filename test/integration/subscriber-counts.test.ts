/**
 * The subscriber counts ([v2.paging-counts]): kept from the table's stream, a batch of changes
 * at a time, so that a page of `GET /subscribers` finds its place and its total without reading
 * the base, and no sign-up or import ever waits on a count item.
 */
import { PassThrough } from 'node:stream';
import { DeleteCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reindexLists } from '../../cli/subscribers/reindex-lists.ts';
import { DynamoSubscriberDirectory } from '../../shared/adapters/store/dynamo-subscriber-directory.ts';
import { toSubscriberItem } from '../../shared/adapters/store/subscriber-item.ts';
import { KEY, keys } from '../../shared/adapters/store/table-design.ts';
import type { SubscriberRecord, SubscriberStatus } from '../../shared/domain/subscriber.ts';
import {
  blockOf,
  COUNT_BLOCK_IDS,
  countChanges,
  currentHour,
} from '../../shared/domain/subscriber-counts.ts';
import { countSubscriberChanges } from '../../shared/operations/subscribers/count-subscriber-changes.ts';
import { listV2Lists } from '../../shared/operations/v2/v2-settings-reads.ts';
import { type CampaignWorld, campaignWorld } from '../support/campaign-world.ts';
import { type CountWorker, countWorker } from '../support/count-worker.ts';
import { applyChange, movedAddress, subscriberChange } from '../support/subscriber-changes.ts';

type Item = Record<string, unknown>;

async function scan(world: CampaignWorld, prefix: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const output = await world.table.client.send(
      new ScanCommand({
        TableName: world.table.name,
        FilterExpression: 'begins_with(#pk, :prefix)',
        ExpressionAttributeNames: { '#pk': KEY.partition },
        ExpressionAttributeValues: { ':prefix': prefix },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(output.Items ?? []));
    start = output.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The subscribers as stored, read one by one (consistently) by their addresses. */
async function stored(world: CampaignWorld): Promise<SubscriberRecord[]> {
  const found: SubscriberRecord[] = [];
  for (const item of await scan(world, 'SUBSCRIBER#')) {
    const record = await world.store.getSubscriber(String(item.email));
    if (record) found.push(record);
  }
  return found;
}

/** Counts as a cell's numbers, the zeros a change back and forth leaves dropped. */
function nonZero(cells: Map<string, Record<string, number>>): Map<string, Record<string, number>> {
  const kept = new Map<string, Record<string, number>>();
  for (const [name, numbers] of cells) {
    const left = Object.fromEntries(Object.entries(numbers).filter(([, value]) => value !== 0));
    if (Object.keys(left).length > 0) kept.set(name, left);
  }
  return kept;
}

/**
 * The counts as stored, once the stream's changes are in: each cell (block, or block and
 * expiry hour) summed over the count shards, as a read sums them.
 */
async function countCells(world: CampaignWorld): Promise<Map<string, Record<string, number>>> {
  await countsOf(world).catchUp();
  const cells = new Map<string, Record<string, number>>();
  for (const item of await scan(world, 'COUNTS#')) {
    const name = String(item[KEY.sort]);
    const cell = cells.get(name) ?? {};
    for (const [attribute, value] of Object.entries(item))
      if (typeof value === 'number') cell[attribute] = (cell[attribute] ?? 0) + value;
    cells.set(name, cell);
  }
  return nonZero(cells);
}

/** What the counts must hold for these subscribers, each counted from scratch. */
function expectedCells(records: readonly SubscriberRecord[]): Map<string, Record<string, number>> {
  const cells = new Map<string, Record<string, number>>();
  for (const record of records) {
    for (const change of countChanges(undefined, record)) {
      const key =
        change.cell.kind === 'kept'
          ? keys.keptCount(0, change.cell.block)
          : keys.expiringCount(0, change.cell.hour, change.cell.block);
      const name = String(key[KEY.sort]);
      const cell = cells.get(name) ?? {};
      for (const [attribute, amount] of Object.entries(change.add))
        cell[attribute] = (cell[attribute] ?? 0) + amount;
      cells.set(name, cell);
    }
  }
  return nonZero(cells);
}

/** Each world's reader of its table's stream, counting as the table-changes function does. */
const workers = new WeakMap<CampaignWorld, CountWorker>();
function countsOf(world: CampaignWorld): CountWorker {
  const found = workers.get(world) ?? countWorker(world.table.name, world.store);
  workers.set(world, found);
  return found;
}

interface Filter {
  readonly status?: SubscriberStatus;
  readonly list?: number;
  readonly emailPrefix?: string;
}

/** Every page of a listing as the directory gives it, and the totals it said. */
async function everyPage(
  directory: DynamoSubscriberDirectory,
  filter: Filter,
  order: 'asc' | 'desc',
  perPage: number,
): Promise<{ emails: string[]; totals: number[] }> {
  const emails: string[] = [];
  const totals: number[] = [];
  for (let page = 1; page <= 50; page += 1) {
    const found = await directory.page({ page, perPage, order, ...filter }, new Date());
    totals.push(found.total);
    if (found.emails.length === 0) break;
    emails.push(...found.emails);
  }
  return { emails, totals };
}

/** The same listing worked out from the records: who matches, in id order. */
function listing(records: readonly SubscriberRecord[], filter: Filter, order: 'asc' | 'desc') {
  return records
    .filter(
      (record) =>
        (filter.status === undefined || record.status === filter.status) &&
        (filter.list === undefined || record.lists.includes(filter.list)) &&
        (filter.emailPrefix === undefined || record.email.startsWith(filter.emailPrefix)),
    )
    .sort((a, b) => (order === 'asc' ? a.id - b.id : b.id - a.id))
    .map((record) => record.email);
}

const FILTERS: readonly Filter[] = [
  {},
  { status: 'C' },
  { status: 'S' },
  { list: 2 },
  { list: 2, status: 'C' },
  { emailPrefix: 'b' },
  { emailPrefix: 'a', status: 'C' },
];

async function expectPagesMatch(world: CampaignWorld): Promise<void> {
  await countsOf(world).catchUp();
  const directory = new DynamoSubscriberDirectory(world.table.client, world.table.name);
  const records = await stored(world);
  for (const filter of FILTERS) {
    for (const order of ['asc', 'desc'] as const) {
      const expected = listing(records, filter, order);
      const { emails, totals } = await everyPage(directory, filter, order, 3);
      expect({ filter, order, emails }).toEqual({ filter, order, emails: expected });
      expect(new Set(totals)).toEqual(new Set([expected.length]));
    }
  }
}

/**
 * The tests that read every page of 14 listings (each page 17 Queries: the 16 list-index
 * partitions and the legacy one) or wait for a stream's batches: 1-3 s alone, and past the
 * default 30 s in a CI run where the file beside them loaded the same DynamoDB Local.
 */
const COUNTING_BUDGET_MS = 90_000;

describe('[v2.paging-counts] the subscriber counts', () => {
  it(
    'equal the subscribers as stored after concurrent changes, moves and deletions, and pages agree with them',
    async () => {
      const world = await campaignWorld({}, {}, undefined, { stream: true });
      // Ids in three blocks, one of them empty between: pages cross blocks and skip the gap.
      const people = [...(await world.subscribe(4, { lists: [1, 2] }, 'a'))];
      await world.store.reserveIds('subscriber', COUNT_BLOCK_IDS + 200);
      people.push(...(await world.subscribe(3, { lists: [2], status: 'S' }, 'b')));
      await world.store.reserveIds('subscriber', 2 * COUNT_BLOCK_IDS);
      people.push(...(await world.subscribe(3, { lists: [3], status: 'U' }, 'a')));
      expect(new Set(people.map((person) => blockOf(person.id)))).toEqual(new Set([0, 1, 3]));
      const emails = people.map((person) => person.email);
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.tuple(fc.integer({ min: 0, max: emails.length - 1 }), subscriberChange(true)),
            {
              minLength: 1,
              maxLength: 10,
            },
          ),
          async (changes) => {
            // All at once: changes of the same subscriber race, and one at a time wins.
            await Promise.all(
              changes.map(async ([who, what]) => {
                const email = emails[who] as string;
                const now = (await world.store.getSubscriber(email)) ? email : movedAddress(email);
                await applyChange(world, now, what);
              }),
            );
            expect(await countCells(world)).toEqual(expectedCells(await stored(world)));
          },
        ),
        { numRuns: 12 },
      );
      await expectPagesMatch(world);
    },
    COUNTING_BUDGET_MS,
  );

  it('stop counting someone asked to confirm once their expiry hour has passed, as reads treat them as gone', async () => {
    const world = await campaignWorld({}, {}, undefined, { stream: true });
    const [person] = await world.subscribe(1, { lists: [2], status: 'S' });
    const current = (await world.store.getSubscriber(person?.email ?? '')) as SubscriberRecord;
    const expiresAt = Math.floor(Date.now() / 1000) + 2 * 3600;
    await world.store.replaceSubscriber(
      { ...current, expires_at: expiresAt, version: current.version + 1 },
      current,
    );
    await countsOf(world).catchUp();
    const directory = new DynamoSubscriberDirectory(world.table.client, world.table.name);
    const at = (date: Date) =>
      directory.page({ page: 1, perPage: 10, order: 'desc', status: 'S', list: 2 }, date);
    expect((await at(new Date())).total).toBe(1);
    const hourAfter = new Date((expiresAt + 3600) * 1000);
    expect(currentHour(hourAfter)).toBeGreaterThan(Math.ceil(expiresAt / 3600));
    expect((await at(hourAfter)).total).toBe(0);
  });

  it(
    '[v2.list-members] are built for subscribers written before them by `subscribers reindex`, once each however often it runs, and then give the lists their members',
    async () => {
      const world = await campaignWorld({}, {}, undefined, { stream: true });
      const people = await world.subscribe(5, { lists: [1, 2] });
      await world.subscribe(2, { lists: [1], status: 'U' });
      // As an older version left them: no counted mark, no counts, no completeness mark.
      for (const record of await stored(world))
        await world.table.client.send(
          new PutCommand({ TableName: world.table.name, Item: toSubscriberItem(record) }),
        );
      for (const item of await scan(world, 'COUNTS#'))
        await world.table.client.send(
          new DeleteCommand({
            TableName: world.table.name,
            Key: { [KEY.partition]: item[KEY.partition], [KEY.sort]: item[KEY.sort] },
          }),
        );
      await world.table.client.send(
        new UpdateCommand({
          TableName: world.table.name,
          Key: keys.counter('subscriber'),
          UpdateExpression: 'REMOVE subscriber_counts',
        }),
      );
      // Until then a page walks the index to count: the answer is the same.
      await expectPagesMatch(world);
      const members = {
        members: new DynamoSubscriberDirectory(world.table.client, world.table.name),
      };
      const lists = (await listV2Lists(
        { ...members, settings: async () => world.current.settings, now: () => new Date() },
        {},
      )) as { items: { id: number; subscribers?: number }[] };
      expect(lists.items.every((list) => list.subscribers === undefined)).toBe(true);

      // A change before the reindex counts the subscriber it changes, whole.
      const first = people[0] as SubscriberRecord;
      await applyChange(world, first.email, { kind: 'lists', lists: [2] });
      // A writer that read someone before the reindex counted them writes on as usual: the
      // counts follow what the stream shows stored, before and after, so nobody counts twice.
      const second = people[1] as SubscriberRecord;
      const stale = (await world.store.getSubscriber(second.email)) as SubscriberRecord;
      expect(stale.uncounted).toBe(true);
      await reindexLists(world.store, { stderr: new PassThrough() });
      expect(
        await world.store.replaceSubscriber(
          { ...stale, name: 'Late', version: stale.version + 1 },
          stale,
        ),
      ).toBe(true);
      await reindexLists(world.store, { stderr: new PassThrough() });
      expect(await countCells(world)).toEqual(expectedCells(await stored(world)));
      await expectPagesMatch(world);

      const counted = (await listV2Lists(
        { ...members, settings: async () => world.current.settings, now: () => new Date() },
        {},
      )) as { items: { id: number; subscribers?: number }[] };
      const confirmedOn = (list: number) =>
        people.filter((person) => person.email !== first.email && person.lists.includes(list))
          .length + (list === 2 ? 1 : 0);
      expect(
        counted.items.filter((list) => list.id <= 2).map((list) => [list.id, list.subscribers]),
      ).toEqual([
        [1, confirmedOn(1)],
        [2, confirmedOn(2)],
      ]);
    },
    COUNTING_BUDGET_MS,
  );

  it(
    'are no part of a subscriber write: a burst of creates and changes names no count item, the stream counts them after',
    async () => {
      const world = await campaignWorld({}, {}, undefined, { stream: true });
      const people = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          world.subscribe(1, { lists: [1, 2] }, `c${index}`),
        ),
      );
      await Promise.all(
        people
          .flat()
          .map((person) => applyChange(world, person.email, { kind: 'lists', lists: [3] })),
      );
      // Nothing counted yet: the writers' transactions held no count item to fight over.
      expect(await scan(world, 'COUNTS#')).toEqual([]);
      expect(await countCells(world)).toEqual(expectedCells(await stored(world)));
    },
    COUNTING_BUDGET_MS,
  );

  it('count a change the stream delivers twice, or in a batch with changes already counted, once', async () => {
    const world = await campaignWorld({}, {}, undefined, { stream: true });
    await world.subscribe(3, { lists: [1] });
    const reader = countWorker(world.table.name, world.store);
    const first = await reader.read();
    await countSubscriberChanges(world.store, first, new Date());
    // Delivered again (a retried batch), and again with newer changes behind it.
    await countSubscriberChanges(world.store, first, new Date());
    await world.subscribe(2, { lists: [2] }, 'later');
    const later = await reader.read();
    expect(later.length).toBeGreaterThan(0);
    await countSubscriberChanges(world.store, [...first, ...later], new Date());
    expect(await countCells(world)).toEqual(expectedCells(await stored(world)));
  });

  it('[campaign.plan] a subscriber moving to another address keeps their list index entries, with the new address', async () => {
    const world = await campaignWorld({}, {}, undefined, { stream: true });
    const [person] = await world.subscribe(1, { lists: [1, 3] });
    const email = person?.email ?? '';
    await applyChange(world, email, { kind: 'move' });
    const entries = (await scan(world, 'MEMBERS#')).map((item) => [
      String(item[KEY.partition]).split('#')[1],
      String(item.email),
    ]);
    const moved = movedAddress(email);
    expect(entries.sort()).toEqual([
      ['1', moved],
      ['3', moved],
    ]);
    // Leaving a list on the way removes its entry.
    const current = (await world.store.getSubscriber(moved)) as SubscriberRecord;
    const directory = new DynamoSubscriberDirectory(world.table.client, world.table.name);
    expect(
      await directory.move(current, {
        ...current,
        email,
        lists: [3],
        version: current.version + 1,
      }),
    ).toBe(true);
    const after = (await scan(world, 'MEMBERS#')).map((item) => [
      String(item[KEY.partition]).split('#')[1],
      String(item.email),
    ]);
    expect(after).toEqual([['3', email]]);
  });
});
