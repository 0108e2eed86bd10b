/**
 * The campaign engine's DynamoDB store on its own, over DynamoDB Local: which conditional
 * writes it lets through and which it refuses (claims, leases, owners, a campaign's run and
 * plan page, an edit's status), and what those writes leave in the table.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoCampaignStore } from '../../shared/adapters/store/dynamo-campaign-store.ts';
import { INDEX, keys } from '../../shared/adapters/store/table-design.ts';
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

const claim = (owner: string, now: number) => ({
  owner,
  now,
  leaseUntil: now + 60_000,
  tokenHash: `hash-${owner}`,
  linkExpiresAt: 2_000_000_000,
});

describe('[campaign.claim] the store lets only a pending recipient, or a lapsed claim, be taken', () => {
  it('refuses a second claim while the lease holds and lets the holder alone settle', async () => {
    const { campaigns, id } = await storeWithIssue();
    await campaigns.putRecipients(id, 1, [1, 2]);
    expect(await campaigns.claimRecipient(id, 1, claim('a', NOW))).toBe(true);
    expect(await campaigns.getRecipient(id, 1)).toMatchObject({
      state: 'sending',
      owner: 'a',
      lease_until: NOW + 60_000,
      attempts: 1,
    });
    expect(await campaigns.claimRecipient(id, 1, claim('b', NOW + 1_000))).toBe(false);
    expect(await campaigns.skipRecipient(id, 1, 'deleted', NOW + 1_000)).toBe(false);
    expect(
      await campaigns.settleRecipient(
        id,
        1,
        'b',
        { state: 'sent', messageId: 'm-b' },
        new Date(NOW),
      ),
    ).toBe(false);
    expect(
      await campaigns.settleRecipient(
        id,
        1,
        'a',
        { state: 'sent', messageId: 'm-a' },
        new Date(NOW),
      ),
    ).toBe(true);
    // The report's time column reads `at`: when the mail was handed to SES.
    expect(await campaigns.getRecipient(id, 1)).toMatchObject({
      state: 'sent',
      message_id: 'm-a',
      at: new Date(NOW).toISOString(),
    });
    // Settled: nobody may claim or skip it again, lease or not.
    expect(await campaigns.claimRecipient(id, 1, claim('c', NOW + 120_000))).toBe(false);
    expect(await campaigns.skipRecipient(id, 1, 'deleted', NOW + 120_000)).toBe(false);
    expect(await campaigns.countRecipients(id)).toEqual({
      pending: 1,
      sending: 0,
      sent: 1,
      skipped: 0,
      failed: 0,
    });
  });

  it('skips a recipient whose claim lapsed, and keeps a failure’s error to 500 characters', async () => {
    const { campaigns, id } = await storeWithIssue();
    await campaigns.putRecipients(id, 1, [1, 2]);
    await campaigns.claimRecipient(id, 1, claim('a', NOW));
    expect(await campaigns.skipRecipient(id, 1, 'deleted', NOW + 60_001)).toBe(true);
    const skipped = await campaigns.getRecipient(id, 1);
    expect(skipped).toMatchObject({ state: 'skipped', reason: 'deleted' });
    expect(skipped?.owner).toBeUndefined();
    expect(skipped?.lease_until).toBeUndefined();
    await campaigns.claimRecipient(id, 2, claim('b', NOW));
    const error = 'x'.repeat(600);
    expect(
      await campaigns.settleRecipient(id, 2, 'b', { state: 'failed', error }, new Date(NOW)),
    ).toBe(true);
    expect((await campaigns.getRecipient(id, 2))?.error).toBe('x'.repeat(500));
    expect(await campaigns.countRecipients(id)).toMatchObject({
      skipped: 1,
      failed: 1,
      pending: 0,
    });
  });

  it('pages the recipients in subscriber order and says whether more follow', async () => {
    const { campaigns, id } = await storeWithIssue();
    await campaigns.putRecipients(id, 2, [3, 1, 2]);
    const first = await campaigns.recipientPage(id, 0, 2);
    expect(first.recipients.map((recipient) => recipient.subscriber_id)).toEqual([1, 2]);
    expect(first.recipients[0]).toMatchObject({ state: 'pending', run: 2, attempts: 0 });
    expect(first.more).toBe(true);
    const rest = await campaigns.recipientPage(id, 2, 2);
    expect(rest.recipients.map((recipient) => recipient.subscriber_id)).toEqual([3]);
    expect(rest.more).toBe(false);
  });

  it('releases a claim only for its holder, back to pending without owner or lease; the link goes only when the mail surely did not', async () => {
    const { campaigns, id } = await storeWithIssue();
    await campaigns.putRecipients(id, 1, [1]);
    await campaigns.claimRecipient(id, 1, claim('a', NOW));
    await campaigns.releaseRecipient(id, 1, 'b', { tokenHash: 'hash-b', mayHaveBeenSent: false });
    expect(await campaigns.getRecipient(id, 1)).toMatchObject({ state: 'sending', owner: 'a' });
    await campaigns.releaseRecipient(id, 1, 'a', { tokenHash: 'hash-a', mayHaveBeenSent: false });
    const released = await campaigns.getRecipient(id, 1);
    expect(released).toMatchObject({ state: 'pending', attempts: 1 });
    expect(released?.owner).toBeUndefined();
    expect(released?.lease_until).toBeUndefined();
    expect(released?.token_hashes).toBeUndefined();
    expect(await campaigns.claimRecipient(id, 1, claim('b', NOW + 1_000))).toBe(true);
    // [campaign.every-copy-link] A call with no answer may have mailed it: its link stays.
    await campaigns.releaseRecipient(id, 1, 'b', { tokenHash: 'hash-b', mayHaveBeenSent: true });
    expect(await campaigns.claimRecipient(id, 1, claim('c', NOW + 2_000))).toBe(true);
    expect([...((await campaigns.getRecipient(id, 1))?.token_hashes ?? [])].sort()).toEqual([
      'hash-b',
      'hash-c',
    ]);
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

  it('[campaign.resume] reads a dense run of ids with one ranged query, scattered ids one query each', async () => {
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
    const one = ['query:recent'];
    // Three ids in a row, far from the first id: one range.
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
    // An id nobody has any more is left out, not given an address.
    const gone = made[6] as (typeof made)[number];
    await world.store.deleteSubscriber(gone);
    const apart = pick(0, 13);
    expect(span([...apart, gone])).toBeGreaterThan(4 * 3);
    expect(await asked([...apart, gone])).toEqual({
      emails: addresses(apart),
      requests: ['query:recent', 'query:recent', 'query:recent'],
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

describe('[campaign.pacing] workers in any container reserve from one time line of slots', () => {
  it('a reservation starts after every slot reserved before, also by another container; a new run starts afresh', async () => {
    const { campaigns, id, fresh } = await storeWithIssue();
    // Another container: a store of its own, which has seen no reservation yet.
    const other = new DynamoCampaignStore(fresh.client, fresh.tableName);
    expect(await campaigns.reservePace(id, 1, 5, 100, NOW)).toBe(NOW);
    expect(await other.reservePace(id, 1, 5, 100, NOW + 10)).toBe(NOW + 500);
    // The first container's view is out of date: its write fails once, then goes after.
    expect(await campaigns.reservePace(id, 1, 2, 100, NOW + 20)).toBe(NOW + 1_000);
    // Long after the last slot, a reservation starts now: no burst of slots from the past.
    expect(await other.reservePace(id, 1, 1, 100, NOW + 60_000)).toBe(NOW + 60_000);
    // A send to the new is another run: its line starts at its own now.
    expect(await campaigns.reservePace(id, 2, 1, 100, NOW + 30)).toBe(NOW + 30);
  });
});
