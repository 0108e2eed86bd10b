/**
 * The campaign engine's DynamoDB store on its own, over DynamoDB Local: which conditional
 * writes it lets through and which it refuses (claims, leases, owners, a campaign's run and
 * plan page, an edit's status), and what those writes leave in the table.
 */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoCampaignStore } from '../../shared/adapters/store/dynamo-campaign-store.ts';
import { RECORD_LINK_HASHES } from '../../shared/adapters/store/dynamo-recipient-records.ts';
import { DynamoSendBudget } from '../../shared/adapters/store/dynamo-send-budget.ts';
import { SUBSCRIBER_INDEX_PARTITIONS } from '../../shared/adapters/store/subscriber-index.ts';
import { INDEX, keys } from '../../shared/adapters/store/table-design.ts';
import { CHUNK_SIZE } from '../../shared/domain/campaign/work-messages.ts';
import { campaignWorld } from '../support/campaign-world.ts';
import { freshStore } from '../support/local-dynamo.ts';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');

async function storeWithIssue(id = 7) {
  const fresh = await freshStore();
  const campaigns = new DynamoCampaignStore(fresh.client, fresh.tableName);
  await campaigns.createIssue(
    { id, subject: 'Hello', created: '2026-11-22T09:00:00.000Z', private: false, lists: [1] },
    { html: '<p>one</p>', text: 'one' },
  );
  /** The issue's item as the table holds it. */
  const raw = async () =>
    (
      await fresh.client.send(
        new GetCommand({
          TableName: fresh.tableName,
          Key: keys.newsletter(id),
          ConsistentRead: true,
        }),
      )
    ).Item;
  return { campaigns, raw, id, fresh };
}

const claim = (owner: string, now: number, entries: string[] = [`1.${owner}`]) => ({
  owner,
  now,
  leaseUntil: now + 60_000,
  linkExpiresAt: 2_000_000_000,
  entries,
});

const space = (newsletterId: number) => ({ newsletterId, legacy: false });

/** About an item's size as DynamoDB counts it: its names, strings, numbers and set members. */
function itemBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return String(value).length;
  if (value instanceof Set)
    return [...value].reduce((sum: number, each) => sum + itemBytes(each), 0);
  if (value && typeof value === 'object')
    return Object.entries(value).reduce(
      (sum, [name, each]) => sum + Buffer.byteLength(name) + itemBytes(each),
      0,
    );
  return 1;
}

describe('[campaign.claim] the store lets a chunk be claimed only when no lease holds it', () => {
  it('refuses a second claim while the lease holds, says until when, and counts the claims', async () => {
    const { campaigns, id } = await storeWithIssue();
    await campaigns.putChunks(id, 1, [
      { first: 1, ids: [1, 2] },
      { first: 3, ids: [3] },
    ]);
    expect(await campaigns.claimChunk(id, 1, 1, claim('a', NOW))).toEqual({
      claimed: true,
      claims: 1,
    });
    expect(await campaigns.claimChunk(id, 1, 1, claim('b', NOW + 1_000))).toEqual({
      claimed: false,
      heldUntil: NOW + 60_000,
    });
    // A chunk nobody planned is never claimed (another run's, or none at all).
    expect(await campaigns.claimChunk(id, 2, 1, claim('b', NOW))).toEqual({ claimed: false });
    // Only the holder gives it back; then a later claim takes it, and knows it is not the first.
    await campaigns.releaseChunk(id, 1, 1, 'b', true);
    expect(await campaigns.claimChunk(id, 1, 1, claim('b', NOW + 1_000))).toMatchObject({
      claimed: false,
    });
    await campaigns.releaseChunk(id, 1, 1, 'a', false);
    expect(await campaigns.claimChunk(id, 1, 1, claim('b', NOW + 1_000))).toEqual({
      claimed: true,
      claims: 2,
    });
    // A lapsed lease is taken over without a release.
    expect(await campaigns.claimChunk(id, 1, 1, claim('c', NOW + 61_001))).toEqual({
      claimed: true,
      claims: 3,
    });
  });

  it('[campaign.every-copy-link] keeps the link entries of every claim, and marks a chunk done only when its holder says so', async () => {
    const { campaigns, id } = await storeWithIssue();
    await campaigns.putChunks(id, 1, [{ first: 1, ids: [1, 2] }]);
    await campaigns.claimChunk(id, 1, 1, claim('a', NOW, ['1.a', '2.a']));
    await campaigns.releaseChunk(id, 1, 1, 'a', false);
    await campaigns.claimChunk(id, 1, 1, claim('b', NOW, ['2.b']));
    expect([...((await campaigns.chunkLinks(id, 1, 1))?.entries ?? [])].sort()).toEqual([
      '1.a',
      '2.a',
      '2.b',
    ]);
    expect((await campaigns.chunkLinks(id, 1, 1))?.linkExpiresAt).toBe(2_000_000_000);
    expect((await campaigns.chunkPage(id, 1, 0, 10, 10)).chunks).toEqual([
      { run: 1, first: 1, ids: [1, 2], done: false },
    ]);
    await campaigns.releaseChunk(id, 1, 1, 'b', true);
    expect((await campaigns.chunkPage(id, 1, 0, 10, 10)).chunks[0]?.done).toBe(true);
    expect(await campaigns.chunkLinks(id, 1, 9)).toBeUndefined();
  });

  it('[campaign.item-sizes] a chunk claimed again and again stays the same size: each claim’s links are an item of their own, of at most a chunk’s links', async () => {
    const { campaigns, id, fresh } = await storeWithIssue();
    const ids = Array.from({ length: CHUNK_SIZE }, (_, index) => index + 1);
    await campaigns.putChunks(id, 1, [{ first: 1, ids }]);
    const entries = (claimNo: number) =>
      ids.map((subscriber) => `${subscriber}.${String(claimNo).padStart(22, 'x')}`);
    const chunkBytes = async () =>
      itemBytes(
        (
          await fresh.client.send(
            new GetCommand({
              TableName: fresh.tableName,
              Key: keys.chunk(id, 1, 1),
              ConsistentRead: true,
            }),
          )
        ).Item ?? {},
      );
    // A throttle storm: the chunk is claimed, mints a link for each of its people, and is
    // given back unsent, thirty times over.
    for (let claimNo = 1; claimNo <= 30; claimNo += 1) {
      const owner = `worker-${claimNo}`;
      expect(await campaigns.claimChunk(id, 1, 1, claim(owner, NOW, entries(claimNo)))).toEqual({
        claimed: true,
        claims: claimNo,
      });
      await campaigns.releaseChunk(id, 1, 1, owner, false);
      if (claimNo === 1) expect(await chunkBytes()).toBeLessThan(1_500);
    }
    expect(await chunkBytes()).toBeLessThan(1_500);
    const claimItems =
      (
        await fresh.client.send(
          new QueryCommand({
            TableName: fresh.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.chunkLinks(id) },
            ConsistentRead: true,
          }),
        )
      ).Items ?? [];
    expect(claimItems).toHaveLength(30);
    for (const item of claimItems) expect(itemBytes(item)).toBeLessThan(4_000);
    // Every copy's link is still found ([campaign.every-copy-link]).
    const links = await campaigns.chunkLinks(id, 1, 1);
    expect(links?.entries).toHaveLength(30 * CHUNK_SIZE);
    expect(links?.entries).toContain(entries(1)[0]);
    // No caller makes a claim's item larger than a chunk's links.
    await campaigns.releaseChunk(id, 1, 1, 'worker-30', false);
    await expect(
      campaigns.claimChunk(id, 1, 1, claim('big', NOW, [...entries(31), '101.extra'])),
    ).rejects.toThrow(RangeError);
  });

  it('pages a run’s chunks by first id up to the cursor, apart from other runs', async () => {
    const { campaigns, id } = await storeWithIssue();
    await campaigns.putChunks(id, 1, [
      { first: 5, ids: [5, 6] },
      { first: 1, ids: [1, 2] },
      { first: 9, ids: [9] },
    ]);
    await campaigns.putChunks(id, 2, [{ first: 3, ids: [3] }]);
    const first = await campaigns.chunkPage(id, 1, 0, 9, 2);
    expect(first.chunks.map((chunk) => chunk.first)).toEqual([1, 5]);
    expect(first.more).toBe(true);
    expect((await campaigns.chunkPage(id, 1, 5, 9, 2)).chunks.map((chunk) => chunk.first)).toEqual([
      9,
    ]);
    expect((await campaigns.chunkPage(id, 1, 0, 8, 10)).chunks.map((chunk) => chunk.first)).toEqual(
      [1, 5],
    );
    expect((await campaigns.chunkPage(id, 2, 0, 9, 10)).chunks.map((chunk) => chunk.first)).toEqual(
      [3],
    );
  });

  it('records each outcome once: a skip or failure only where nothing is recorded, a sent mail always', async () => {
    const { campaigns, id } = await storeWithIssue();
    const at = new Date(NOW);
    const sent = (messageId: string, tokenHash: string) =>
      ({ state: 'sent', messageId, tokenHash, linkExpiresAt: 2_000_000_000 }) as const;
    expect(await campaigns.recordOutcome(id, 1, 1, sent('m-1', 'h-1'), at)).toBe(true);
    // A second copy after a crash: its message id and its link are recorded too.
    expect(await campaigns.recordOutcome(id, 1, 1, sent('m-2', 'h-2'), at)).toBe(true);
    expect(
      await campaigns.recordOutcome(id, 1, 1, { state: 'skipped', reason: 'deleted' }, at),
    ).toBe(false);
    const record = await campaigns.getRecipient(space(id), 1);
    expect(record).toMatchObject({
      state: 'sent',
      message_id: 'm-2',
      at: at.toISOString(),
      run: 1,
      link_expires_at: 2_000_000_000,
    });
    expect([...(record?.token_hashes ?? [])].sort()).toEqual(['h-1', 'h-2']);
    const error = 'x'.repeat(600);
    expect(await campaigns.recordOutcome(id, 1, 2, { state: 'failed', error }, at)).toBe(true);
    expect(await campaigns.recordOutcome(id, 1, 2, { state: 'failed', error }, at)).toBe(false);
    expect((await campaigns.getRecipient(space(id), 2))?.error).toBe('x'.repeat(500));
    expect(
      await campaigns.recordOutcome(id, 2, 3, { state: 'skipped', reason: 'deleted' }, at),
    ).toBe(true);
    expect(await campaigns.countSettled(space(id), 1)).toEqual({ sent: 1, skipped: 0, failed: 1 });
    expect(await campaigns.countSettled(space(id), 2)).toEqual({ sent: 0, skipped: 1, failed: 0 });
    expect([...(await campaigns.settledRecipients(space(id), [1, 2, 3, 4]))].sort()).toEqual([
      1, 2, 3,
    ]);
  });

  it('[campaign.item-sizes] a record keeps at most RECORD_LINK_HASHES links however many copies are recorded, and still records each copy', async () => {
    const { campaigns, id } = await storeWithIssue();
    const at = new Date(NOW);
    for (let copy = 1; copy <= RECORD_LINK_HASHES + 4; copy += 1)
      expect(
        await campaigns.recordOutcome(
          id,
          1,
          5,
          { state: 'sent', messageId: `m-${copy}`, tokenHash: `h-${copy}`, linkExpiresAt: 2e9 },
          at,
        ),
      ).toBe(true);
    const record = await campaigns.getRecipient(space(id), 5);
    expect(record).toMatchObject({ state: 'sent', message_id: `m-${RECORD_LINK_HASHES + 4}` });
    expect(record?.token_hashes).toHaveLength(RECORD_LINK_HASHES);
    expect(record?.token_hashes).toContain('h-1');
  });

  it('[campaign.report] spreads the records over partitions and pages them in subscriber order, the old partition’s too', async () => {
    const { campaigns, id, fresh } = await storeWithIssue();
    const at = new Date(NOW);
    const ids = [17, 3, 9, 1, 2, 8, 16, 10, 11, 4];
    for (const subscriberId of ids)
      await campaigns.recordOutcome(id, 1, subscriberId, { state: 'failed', error: 'e' }, at);
    // A record a run from before the spread wrote, in the issue's one old partition.
    await fresh.client.send(
      new UpdateCommand({
        TableName: fresh.tableName,
        Key: keys.legacyRecipient(id, 5),
        UpdateExpression: 'SET #state = :sent, run = :run',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':sent': 'sent', ':run': 1 },
      }),
    );
    const partitions = new Set(ids.map((each) => keys.recipient(id, each).pk));
    expect(partitions.size).toBeGreaterThan(4);
    for (const legacy of [false, true]) {
      const seen: number[] = [];
      let after = 0;
      for (let pages = 0; pages < 30; pages += 1) {
        const page = await campaigns.recipientPage({ newsletterId: id, legacy }, after, 3);
        seen.push(...page.recipients.map((recipient) => recipient.subscriber_id));
        const last = page.recipients.at(-1)?.subscriber_id;
        if (!page.more || last === undefined) break;
        after = last;
      }
      const expected = [...ids, ...(legacy ? [5] : [])].sort((a, b) => a - b);
      expect(seen).toEqual(expected);
    }
    expect(await campaigns.countSettled({ newsletterId: id, legacy: true }, 1)).toEqual({
      sent: 1,
      skipped: 0,
      failed: 10,
    });
    expect(await campaigns.getRecipient({ newsletterId: id, legacy: true }, 5)).toMatchObject({
      state: 'sent',
    });
    expect([
      ...(await campaigns.settledRecipients({ newsletterId: id, legacy: true }, [5, 6])),
    ]).toEqual([5]);
    expect([...(await campaigns.settledRecipients(space(id), [5]))]).toEqual([]);
    // Feedback and unsubscribes find a record wherever it is.
    await campaigns.markUnsubscribed(id, 5, at);
    await campaigns.markUnsubscribed(id, 17, at);
    expect(
      (await campaigns.getRecipient({ newsletterId: id, legacy: true }, 5))?.unsubscribed_at,
    ).toBe(at.toISOString());
    expect((await campaigns.getRecipient(space(id), 17))?.unsubscribed_at).toBe(at.toISOString());
  });
});

describe('[campaign.plan] the store commits a campaign update only while its run and plan page are as expected', () => {
  it('refuses an update that expects another run, and applies one that expects this run', async () => {
    const { campaigns, id } = await storeWithIssue();
    const started = await campaigns.updateCampaign(id, {
      expect: { statuses: ['draft'] },
      set: { status: 'sending', run: 2 },
    });
    expect(started).toMatchObject({ status: 'sending', run: 2 });
    expect(
      await campaigns.updateCampaign(id, {
        expect: { statuses: ['sending'], run: 1 },
        set: { plan_page: 1 },
      }),
    ).toBeUndefined();
    expect(await campaigns.getCampaign(id)).not.toHaveProperty('plan_page', 1);
    expect(
      await campaigns.updateCampaign(id, {
        expect: { statuses: ['sending'], run: 2 },
        set: { plan_page: 1 },
      }),
    ).toMatchObject({ run: 2, plan_page: 1 });
  });

  it('commits page 0 only on a campaign with no page yet, and page n only where page n is', async () => {
    const { campaigns, raw, id } = await storeWithIssue();
    const first = { expect: { statuses: ['draft' as const], planPage: 0 }, set: { plan_page: 1 } };
    expect(await campaigns.updateCampaign(id, first)).toMatchObject({ plan_page: 1 });
    // The same page committed twice (a planner message delivered again) is refused.
    expect(await campaigns.updateCampaign(id, first)).toBeUndefined();
    expect(
      await campaigns.updateCampaign(id, {
        expect: { statuses: ['draft'], planPage: 2 },
        set: { plan_page: 3 },
      }),
    ).toBeUndefined();
    expect((await raw())?.plan_page).toBe(1);
    expect(
      await campaigns.updateCampaign(id, {
        expect: { statuses: ['draft'], planPage: 1 },
        set: { plan_page: 2 },
      }),
    ).toMatchObject({ plan_page: 2 });
  });

  it('throws, rather than reporting a moved-on campaign, when DynamoDB refuses the update itself', async () => {
    const { campaigns, id } = await storeWithIssue();
    await expect(
      campaigns.updateCampaign(id, {
        expect: { statuses: ['draft'] },
        set: { plan_page: 1 },
        remove: ['plan_page'],
      }),
    ).rejects.toThrow();
  });
});

describe('[campaign.private-race] the store applies an update only on the privacy it expects', () => {
  it('refuses an update that expects the other privacy, and takes an issue without the field as public', async () => {
    const { campaigns, id, fresh } = await storeWithIssue();
    const touch = (privacy: boolean) =>
      campaigns.updateCampaign(id, {
        expect: { statuses: ['draft'], private: privacy },
        set: { sent_at: `${privacy}` },
      });
    expect(await touch(true)).toBeUndefined();
    expect(await touch(false)).toMatchObject({ sent_at: 'false' });
    await fresh.client.send(
      new UpdateCommand({
        TableName: fresh.tableName,
        Key: keys.newsletter(id),
        UpdateExpression: 'REMOVE #private',
        ExpressionAttributeNames: { '#private': 'private' },
      }),
    );
    expect(await touch(true)).toBeUndefined();
    expect(await touch(false)).toMatchObject({ private: false, sent_at: 'false' });
    await campaigns.editIssue(id, { private: true }, undefined, ['draft']);
    expect(await touch(false)).toBeUndefined();
    expect(await touch(true)).toMatchObject({ private: true, sent_at: 'true' });
    // An update that expects no privacy applies to a private issue as to any other.
    expect(
      await campaigns.updateCampaign(id, {
        expect: { statuses: ['draft'] },
        set: { sent_at: 'any' },
      }),
    ).toMatchObject({ private: true, sent_at: 'any' });
  });
});

describe('[campaign.listing] the store lists a sent public issue to keyless callers and stops when told', () => {
  it('an update with listPublicly sets, and then removes, the public listing key', async () => {
    const { campaigns, raw, id } = await storeWithIssue();
    await campaigns.updateCampaign(id, {
      expect: { statuses: ['draft'] },
      set: { status: 'sent' },
      listPublicly: true,
    });
    expect((await raw())?.public_pk).toBe('newsletter');
    await campaigns.updateCampaign(id, { expect: { statuses: ['sent'] }, listPublicly: false });
    expect(await raw()).not.toHaveProperty('public_pk');
  });

  it('an edit with listPublicly sets, and then removes, the public listing key', async () => {
    const { campaigns, raw, id } = await storeWithIssue();
    await campaigns.editIssue(id, { listPublicly: true }, undefined, ['draft']);
    expect((await raw())?.public_pk).toBe('newsletter');
    await campaigns.editIssue(id, { listPublicly: false, private: true }, undefined, ['draft']);
    expect(await raw()).not.toHaveProperty('public_pk');
    expect((await raw())?.private).toBe(true);
  });
});

describe('[campaign.lifecycle] the store edits an issue only while it has one of the given statuses', () => {
  it('edits subject, lists and url in an allowed status and returns the issue after the edit', async () => {
    const { campaigns, raw, id } = await storeWithIssue();
    const edited = await campaigns.editIssue(
      id,
      { subject: 'Bye', lists: [2, 3], url: 'https://example.com/7' },
      undefined,
      ['draft', 'scheduled'],
    );
    expect(edited).toMatchObject({ subject: 'Bye', lists: [2, 3], url: 'https://example.com/7' });
    const cleared = await campaigns.editIssue(id, { url: null }, undefined, ['draft']);
    expect(cleared?.subject).toBe('Bye');
    expect(cleared).not.toHaveProperty('url');
    expect(await raw()).not.toHaveProperty('url');
    // A sent issue made private loses its url and its public listing in one edit.
    await campaigns.editIssue(id, { url: 'https://example.com/7', listPublicly: true }, undefined, [
      'draft',
    ]);
    const unlisted = await campaigns.editIssue(id, { url: null, listPublicly: false }, undefined, [
      'draft',
    ]);
    expect(unlisted).not.toHaveProperty('url');
    expect(await raw()).not.toHaveProperty('url');
    expect(await raw()).not.toHaveProperty(INDEX.publicRecent.partition);
    // An edit that changes nothing writes nothing and returns the issue as it is.
    expect(await campaigns.editIssue(id, {}, undefined, ['draft'])).toMatchObject({
      subject: 'Bye',
      lists: [2, 3],
    });
  });

  it('reads a draft back as it was created: its creation time, and no sending rate yet', async () => {
    const { campaigns, id } = await storeWithIssue();
    expect(await campaigns.getCampaign(id)).toEqual({
      id,
      subject: 'Hello',
      status: 'draft',
      created: '2026-11-22T09:00:00.000Z',
      sent_at: null,
      private: false,
      lists: [1],
      run: 0,
      max_subscriber_id: 0,
      new_only: false,
      plan_page: 0,
      plan_cursor: 0,
      plan_done: false,
      total: 0,
      sent: 0,
      skipped: 0,
      failed: 0,
      consecutive_failures: 0,
      walk: 0,
      fed_after: 0,
      fed_chunks: 0,
      done_chunks: 0,
      legacy_records: false,
      records_spread: false,
    });
  });

  it('refuses an edit, content included, once the status moved on, and changes nothing', async () => {
    const { campaigns, id } = await storeWithIssue();
    await campaigns.updateCampaign(id, {
      expect: { statuses: ['draft'] },
      set: { status: 'sending' },
    });
    expect(
      await campaigns.editIssue(id, { subject: 'Late' }, undefined, ['draft', 'scheduled']),
    ).toBeUndefined();
    expect(
      await campaigns.editIssue(id, { subject: 'Late' }, { html: '<p>two</p>', text: 'two' }, [
        'draft',
      ]),
    ).toBeUndefined();
    expect(
      await campaigns.editIssue(id, {}, { html: '<p>two</p>', text: 'two' }, ['draft']),
    ).toBeUndefined();
    expect(await campaigns.getCampaign(id)).toMatchObject({ subject: 'Hello', status: 'sending' });
    expect(await campaigns.getContent(id)).toEqual({ html: '<p>one</p>', text: 'one' });
  });

  it('replaces the content with or without field edits while the status allows', async () => {
    const { campaigns, id } = await storeWithIssue();
    const alone = await campaigns.editIssue(
      id,
      {},
      { html: '<p>two</p>', text: 'two', text_derived: true },
      ['draft'],
    );
    expect(alone).toMatchObject({ subject: 'Hello', status: 'draft' });
    expect(await campaigns.getContent(id)).toEqual({
      html: '<p>two</p>',
      text: 'two',
      text_derived: true,
    });
    const both = await campaigns.editIssue(
      id,
      { subject: 'Three' },
      { html: '<p>3</p>', text: '3' },
      ['draft'],
    );
    expect(both?.subject).toBe('Three');
    expect(await campaigns.getContent(id)).toEqual({ html: '<p>3</p>', text: '3' });
  });

  it('throws, rather than reporting a moved-on issue, when DynamoDB refuses the edit itself', async () => {
    const { campaigns, id } = await storeWithIssue();
    // Larger than DynamoDB's 400 KB item: a ValidationException, not a failed condition.
    await expect(
      campaigns.editIssue(id, { subject: 'x'.repeat(410_000) }, undefined, ['draft']),
    ).rejects.toThrow();
    expect((await campaigns.getCampaign(id))?.subject).toBe('Hello');
  });
});

describe('[campaign.plan] the store reads the list index a page at a time up to the start’s highest id', () => {
  it('pages through the members of the lists in id order, each once, and says there is more only while short of the highest id', async () => {
    const world = await campaignWorld();
    const both = await world.subscribe(3, { lists: [1, 2] });
    const one = await world.subscribe(4, { lists: [2] });
    await world.subscribe(2, { lists: [3] });
    await world.subscribe(2, { lists: [1], status: 'S' });
    const late = await world.subscribe(1, { lists: [1] });
    const members = [...both, ...one].map((subscriber) => subscriber.id).sort((a, b) => a - b);
    const top = (late[0]?.id ?? 0) - 1;
    for (const limit of [1, 2, 5, 100]) {
      const seen: number[] = [];
      let after = 0;
      for (let pages = 0; pages < 50; pages += 1) {
        const page = await world.campaigns.memberPage([1, 2], after, top, limit);
        expect(page.members.every((member) => member.id > after && member.id <= page.last)).toBe(
          true,
        );
        seen.push(...page.members.map((member) => member.id));
        after = page.last;
        if (!page.more) break;
      }
      expect(seen).toEqual(members);
      expect(after).toBe(top);
    }
    const first = await world.campaigns.memberPage([2], 0, top, 100);
    expect(first.members[0]).toEqual({ id: both[0]?.id, email: both[0]?.email });
    expect(await world.campaigns.memberPage([1], top, top, 10)).toEqual({
      members: [],
      last: top,
      more: false,
    });
  });

  it('knows the index complete on a fresh table, and not on one whose subscribers predate it until reindexed', async () => {
    const world = await campaignWorld();
    expect(await world.campaigns.listIndexReady()).toBe(true);
    await world.subscribe(1);
    expect(await world.campaigns.listIndexReady()).toBe(true);
    await world.table.client.send(
      new UpdateCommand({
        TableName: world.table.name,
        Key: keys.counter('subscriber'),
        UpdateExpression: 'REMOVE list_index',
      }),
    );
    expect(await world.campaigns.listIndexReady()).toBe(false);
    await world.store.markListIndexReady();
    expect(await world.campaigns.listIndexReady()).toBe(true);
  });

  it('finds the addresses of exactly the ids asked for, dense or scattered', async () => {
    const world = await campaignWorld();
    const made = await world.subscribe(12);
    const pick = (...at: number[]) => at.map((index) => made[index] as (typeof made)[number]);
    const expected = (chosen: typeof made) =>
      new Map(chosen.map((subscriber) => [subscriber.id, subscriber.email]));
    const dense = pick(2, 0, 3);
    expect(await world.campaigns.emailsOf(dense.map((s) => s.id))).toEqual(expected(dense));
    const scattered = pick(11, 0);
    expect(await world.campaigns.emailsOf(scattered.map((s) => s.id))).toEqual(expected(scattered));
    expect(await world.campaigns.emailsOf([])).toEqual(new Map());
  });

  it('[campaign.resume] reads a dense run of ids with one ranged query per index partition, scattered ids one query each', async () => {
    const requests: string[] = [];
    const world = await campaignWorld({}, {}, (operation) => requests.push(operation));
    const made = await world.subscribe(14);
    const pick = (...at: number[]) => at.map((index) => made[index] as (typeof made)[number]);
    const span = (chosen: typeof made) =>
      Math.max(...chosen.map((s) => s.id)) - Math.min(...chosen.map((s) => s.id)) + 1;
    const asked = async (chosen: typeof made) => {
      requests.length = 0;
      const emails = await world.campaigns.emailsOf(chosen.map((s) => s.id));
      return { emails: [...emails.values()].sort(), requests: [...requests] };
    };
    const addresses = (chosen: typeof made) => chosen.map((s) => s.email).sort();
    const one = SUBSCRIBER_INDEX_PARTITIONS.map(() => 'query:recent');
    // Three ids in a row, far from the first id: one range of each partition.
    const dense = pick(9, 10, 11);
    expect(await asked(dense)).toEqual({ emails: addresses(dense), requests: one });
    // A range of at most four ids per id asked is read as one range; one more is not.
    const widest = pick(0, 7);
    expect(span(widest)).toBe(8);
    expect(await asked(widest)).toEqual({ emails: addresses(widest), requests: one });
    const scattered = pick(0, 8);
    expect(span(scattered)).toBe(9);
    expect(await asked(scattered)).toEqual({
      emails: addresses(scattered),
      requests: ['query:recent', 'query:recent'],
    });
    // An id nobody has any more is left out, not given an address: its partition and the
    // partition of subscribers written before the spread both say so.
    const gone = made[6] as (typeof made)[number];
    await world.store.deleteSubscriber(gone);
    const apart = pick(0, 13);
    expect(span([...apart, gone])).toBeGreaterThan(4 * 3);
    expect(await asked([...apart, gone])).toEqual({
      emails: addresses(apart),
      requests: ['query:recent', 'query:recent', 'query:recent', 'query:recent'],
    });
  });
});

describe('[campaign.sweep] the store finds the sending campaigns however many newer issues there are', () => {
  it('reads past newer issues of other statuses, newest first, and stops at the limit', async () => {
    const fresh = await freshStore();
    const campaigns = new DynamoCampaignStore(fresh.client, fresh.tableName);
    // Ids 1 to 6, oldest first: 1 and 3 are sending, 2 is paused, the rest are newer drafts.
    for (const id of [1, 2, 3, 4, 5, 6]) {
      await campaigns.createIssue(
        {
          id,
          subject: `Issue ${id}`,
          created: `2026-11-2${id}T09:00:00.000Z`,
          private: false,
          lists: [1],
        },
        { html: '<p>one</p>', text: 'one' },
      );
    }
    for (const [id, status] of [
      [1, 'sending'],
      [2, 'paused'],
      [3, 'sending'],
    ] as const) {
      await fresh.client.send(
        new UpdateCommand({
          TableName: fresh.tableName,
          Key: keys.newsletter(id),
          UpdateExpression: 'SET #status = :status',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status },
        }),
      );
    }
    // The three newest are drafts: a single page of `limit` items would find nothing.
    expect(await campaigns.campaignsWithStatus(['sending'], 3)).toEqual([3, 1]);
    expect(await campaigns.campaignsWithStatus(['sending', 'paused'], 10)).toEqual([3, 2, 1]);
    expect(await campaigns.campaignsWithStatus(['sending', 'paused'], 2)).toEqual([3, 2]);
    expect(await campaigns.campaignsWithStatus(['cancelled'], 2)).toEqual([]);
  });

  it('stops reading pages once the limit is reached', async () => {
    const requests: string[] = [];
    const fresh = await freshStore();
    const campaigns = new DynamoCampaignStore(fresh.client, fresh.tableName, (operation) =>
      requests.push(operation),
    );
    for (const id of [1, 2, 3, 4, 5, 6]) {
      await campaigns.createIssue(
        {
          id,
          subject: `Issue ${id}`,
          created: '2026-11-22T09:00:00.000Z',
          private: false,
          lists: [1],
        },
        undefined,
      );
    }
    for (const id of [1, 3]) {
      await campaigns.updateCampaign(id, {
        set: { status: 'sending' },
        expect: { statuses: ['draft'] },
      });
    }
    requests.length = 0;
    // Pages of two, newest first: 6–5 (none), 4–3 (one), 2–1 (the second): then it stops,
    // although that page ended at the query's Limit and so said more might follow.
    expect(await campaigns.campaignsWithStatus(['sending'], 2)).toEqual([3, 1]);
    expect(requests).toEqual(['query:recent', 'query:recent', 'query:recent']);
  });
});

describe('[campaign.budget] every worker of every campaign reserves from the account’s one time line of slots', () => {
  it('a reservation starts after every slot reserved before, by another container or for another campaign, and never in the past', async () => {
    const fresh = await freshStore();
    const budget = new DynamoSendBudget(fresh.client, fresh.tableName);
    // Another container (a worker of another campaign): a budget of its own, which has seen
    // no reservation yet.
    const other = new DynamoSendBudget(fresh.client, fresh.tableName);
    expect(await budget.reserve(5, 100, NOW)).toBe(NOW);
    expect(await other.reserve(5, 100, NOW + 10)).toBe(NOW + 500);
    // The first container's view is out of date: its write fails once, then goes after.
    expect(await budget.reserve(2, 100, NOW + 20)).toBe(NOW + 1_000);
    // Long after the last slot, a reservation starts now: no burst of slots from the past.
    expect(await other.reserve(1, 100, NOW + 60_000)).toBe(NOW + 60_000);
    expect(await budget.reserve(1, 100, NOW + 60_030)).toBe(NOW + 60_100);
    // Another budget (another kind of mail) is a time line of its own.
    const series = new DynamoSendBudget(fresh.client, fresh.tableName, 'series');
    expect(await series.reserve(1, 100, NOW + 60_040)).toBe(NOW + 60_040);
  });
});
