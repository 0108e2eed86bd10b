/**
 * The issues a subscriber got ([v2.subscriber-issues]), read issue by issue from the `recent`
 * index and the subscriber's record in each, page by page, against DynamoDB Local.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { DynamoSubscriberHistory } from '../../shared/adapters/store/dynamo-subscriber-history.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import { campaignWorld, started } from '../support/campaign-world.ts';

it('[v2.subscriber-issues] pages through the issues that went out, newest first, each record once', async () => {
  const world = await campaignWorld();
  const [reader] = await world.subscribe(1);
  // On no list of the issues: only the record written by hand below is theirs.
  const [other] = await world.subscribe(1, { lists: [3] });
  if (!reader || !other) throw new Error('no subscribers');
  const ids: number[] = [];
  for (const subject of ['one', 'two', 'three', 'four']) {
    const issue = await world.issue({ subject, lists: [1] });
    await started(world, issue.id);
    await world.drain();
    ids.push(issue.id);
  }
  // A draft and an issue to another list: nothing of theirs.
  await world.issue({ subject: 'draft' });
  const elsewhere = await world.issue({ subject: 'elsewhere', lists: [2] });
  await world.subscribe(1, { lists: [2] });
  await started(world, elsewhere.id);
  await world.drain();
  // A record of a run from before the records were spread, in the issue's one partition.
  await world.table.client.send(
    new PutCommand({
      TableName: world.table.name,
      Item: {
        ...keys.legacyRecipient(ids[0] ?? 0, other.id),
        state: 'skipped',
        reason: 'unsubscribed',
        run: 1,
        at: '2026-01-01T00:00:00.000Z',
      },
    }),
  );
  // Both an old-partition record and a spread one: the spread one is the later run's.
  await world.table.client.send(
    new PutCommand({
      TableName: world.table.name,
      Item: { ...keys.legacyRecipient(ids[3] ?? 0, reader.id), state: 'failed', run: 1 },
    }),
  );
  const history = new DynamoSubscriberHistory(world.table.client, world.table.name);

  // Two issues that went out a page: `elsewhere` takes a place in the first page.
  const first = await history.issuesOf(reader.id, undefined, 2);
  expect(first.issues.map((issue) => [issue.id, issue.subject, issue.outcome])).toEqual([
    [ids[3], 'four', 'sent'],
  ]);
  expect(first.before).toBe(ids[3]);
  const second = await history.issuesOf(reader.id, first.before, 2);
  expect(second.issues.map((issue) => issue.id)).toEqual([ids[2], ids[1]]);
  const third = await history.issuesOf(reader.id, second.before, 2);
  expect(third.issues.map((issue) => issue.id)).toEqual([ids[0]]);
  // Fewer than a page of issues left: the last page.
  expect(third.before).toBeUndefined();
  for (const issue of [...first.issues, ...second.issues, ...third.issues])
    expect(issue.at).toMatch(/^\d{4}-\d{2}-\d{2}T/);

  const legacy = await history.issuesOf(other.id, undefined, 10);
  expect(legacy).toEqual({
    issues: [
      {
        id: ids[0],
        subject: 'one',
        outcome: 'skipped',
        reason: 'unsubscribed',
        at: '2026-01-01T00:00:00.000Z',
      },
    ],
  });
  // Someone no issue reached: an empty page.
  expect(await history.issuesOf(999_999, undefined, 10)).toEqual({ issues: [] });
});
