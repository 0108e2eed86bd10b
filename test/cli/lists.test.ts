import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoCampaignStore } from '../../shared/adapters/store/dynamo-campaign-store.ts';
import { DynamoListUsage } from '../../shared/adapters/store/dynamo-list-usage.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { parseSettings } from '../../shared/domain/parse-settings.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { createNewsletter } from '../../shared/newsletter.ts';
import { sendNewsletter } from '../../shared/operations/campaign/control-campaign.ts';
import type { Dependencies } from '../../shared/operations/dependencies.ts';
import { deleteList } from '../../shared/operations/lists/manage-lists.ts';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { RecordingLogger, RecordingMetrics } from '../support/fixtures.ts';
import { CLI_SETTINGS, type CliWorld, cliWorld } from './cli-harness.ts';

const SETTINGS = ENV_DEFAULTS.settingsParameter;

let world: CliWorld;

/** The function class over this world's table and the settings the CLI wrote. */
const worldDependencies = (): Dependencies => ({
  store: world.store,
  settings: async () => parseSettings(world.parameters.get(SETTINGS)?.value ?? ''),
  now: () => new Date(),
  log: new RecordingLogger(),
  metrics: new RecordingMetrics(),
});

beforeEach(async () => {
  await world?.close();
  world = await cliWorld();
});

afterAll(async () => {
  await world.close();
});

/** The stored settings document as written (no defaults filled in). */
const storedDocument = (): { lists: Record<string, unknown>[] } & Record<string, unknown> =>
  JSON.parse(world.parameters.get(SETTINGS)?.value ?? '{}');

describe('lists list', () => {
  it('shows every list with its flags', async () => {
    const result = await world.cli(['lists', 'list']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+PRIVATE\s+PREASSIGNED\s+NAME$/);
    expect(lines).toHaveLength(5);
    expect(lines[2]).toMatch(/^2\s+yes\s+no\s+Staff only$/);
    expect(lines[3]).toMatch(/^3\s+no\s+yes\s+Announcements$/);
    const json = await world.cli(['lists', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(parseSettings(CLI_SETTINGS).lists);
  });

  it('says how to create the settings when there are none', async () => {
    await world.close();
    world = await cliWorld(null);
    const result = await world.cli(['lists', 'list']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /settings parameter \/newsletter\/settings does not exist.*newsletter settings set/,
    );
  });
});

describe('lists create', () => {
  it('adds a private, pre-assigned list with the next id, keeping defaults implicit', async () => {
    // Act
    const result = await world.cli([
      'lists',
      'create',
      '--name',
      ' Partners ',
      '--private',
      '--preassigned',
    ]);
    // Assert
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Created list 5 (Partners).\n');
    const document = storedDocument();
    expect(document.lists.at(-1)).toEqual({
      id: 5,
      name: 'Partners',
      private: true,
      preassigned: true,
    });
    // Only the list was added: no default (texts, lifetimes) was frozen into the document.
    expect(document).toEqual({
      ...CLI_SETTINGS,
      lists: [...CLI_SETTINGS.lists, document.lists.at(-1)],
    });
  });

  it('takes an explicit id and a plain public list, and refuses a taken id', async () => {
    const created = await world.cli(['lists', 'create', '--name', 'Jobs', '--id', '10']);
    expect(created.code).toBe(0);
    expect(storedDocument().lists.at(-1)).toEqual({ id: 10, name: 'Jobs' });
    const taken = await world.cli(['lists', 'create', '--name', 'Again', '--id', '10']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/List 10 already exists/);
  });

  it('refuses an invalid list, naming the field, and writes nothing', async () => {
    const before = world.parameters.get(SETTINGS)?.version;
    const result = await world.cli(['lists', 'create', '--name', 'x'.repeat(101)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/settings\.lists\.4\.name/);
    expect(world.parameters.get(SETTINGS)?.version).toBe(before);
  });

  it('a list created pre-assigned is given to new subscribers by the function class', async () => {
    await world.cli(['lists', 'create', '--name', 'Everyone', '--preassigned']);
    const newsletter = createNewsletter(worldDependencies());
    const added = await newsletter.add_subscriber({ email: 'new@example.com' });
    expect(isNewsletterError(added)).toBe(false);
    expect((added as Subscriber).lists).toEqual([3, 5]);
  });
});

describe('lists edit', () => {
  it('changes the name and turns private and preassigned on and off', async () => {
    const on = await world.cli([
      'lists',
      'edit',
      '1',
      '--name',
      'Weekly digest',
      '--private',
      'true',
      '--preassigned',
      'yes',
    ]);
    expect(on.code).toBe(0);
    expect(storedDocument().lists[0]).toEqual({
      id: 1,
      name: 'Weekly digest',
      private: true,
      preassigned: true,
    });

    const off = await world.cli([
      'lists',
      'edit',
      '1',
      '--private',
      'false',
      '--preassigned',
      'no',
    ]);
    expect(off.code).toBe(0);
    expect(storedDocument().lists[0]).toEqual({ id: 1, name: 'Weekly digest' });
  });

  it('an unknown list and an empty change are refused', async () => {
    const unknown = await world.cli(['lists', 'edit', '99', '--name', 'X']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/List 99 does not exist/);
    const nothing = await world.cli(['lists', 'edit', '1']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/Nothing to change/);
  });

  it('a private list can then be assigned only with the key', async () => {
    await world.cli(['lists', 'edit', '4', '--private', 'true']);
    const newsletter = createNewsletter(worldDependencies());
    const result = await newsletter.subscribe(
      { email: 'p@example.com', lists: [4] },
      { trusted: false },
    );
    expect(isNewsletterError(result) && result.code).toBe('private_list');
  });
});

describe('[v2.lists-delete] lists delete', () => {
  /** An issue of `status` going to `lists`, as the campaign store keeps it. */
  async function issue(id: number, lists: number[], status: 'draft' | 'sent' | 'scheduled') {
    const campaigns = new DynamoCampaignStore(world.client, world.tableName);
    await campaigns.createIssue(
      { id, subject: `Issue ${id}`, created: new Date().toISOString(), private: false, lists },
      { html: '<p>News</p>', text: 'News' },
    );
    if (status !== 'draft')
      await campaigns.updateCampaign(id, { expect: { statuses: ['draft'] }, set: { status } });
  }

  it('deletes a list no unsent issue names; its id is never given again, and its members keep it', async () => {
    // Arrange: a sent issue went to list 4, and a subscriber is on it.
    await issue(21, [1, 4], 'sent');
    const newsletter = createNewsletter(worldDependencies());
    await newsletter.add_subscriber({ email: 'member@example.com', lists: [1, 4] });
    // Act
    const deleted = await world.cli(['lists', 'delete', '4']);
    // Assert
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(
      'Deleted list 4 (Events). Its members keep the id; no list will have it again.\n',
    );
    expect(storedDocument()).toEqual({
      ...CLI_SETTINGS,
      lists: CLI_SETTINGS.lists.filter((list) => list.id !== 4),
      next_list_id: 5,
    });
    // (3 is pre-assigned.)
    expect((await world.store.getSubscriber('member@example.com'))?.lists).toEqual([1, 3, 4]);
    // The next list is 5, not 4; an explicit 4 is refused, 7 is taken and moves the counter.
    expect((await world.cli(['lists', 'create', '--name', 'Next'])).stdout).toBe(
      'Created list 5 (Next).\n',
    );
    const reused = await world.cli(['lists', 'create', '--name', 'Events again', '--id', '4']);
    expect(reused.code).toBe(1);
    expect(reused.stderr).toMatch(/List ids below 6 are not given again: 4 may be a deleted list/);
    expect((await world.cli(['lists', 'create', '--name', 'Far', '--id', '7'])).code).toBe(0);
    expect(storedDocument().next_list_id).toBe(8);
    // Deleting the highest list does not give its id back either.
    await world.cli(['lists', 'delete', '7']);
    expect((await world.cli(['lists', 'create', '--name', 'After'])).stdout).toBe(
      'Created list 8 (After).\n',
    );
  });

  it('refuses while a draft, scheduled, sending or paused issue names the list, naming them; writes nothing', async () => {
    await issue(31, [2, 4], 'draft');
    await issue(32, [4], 'scheduled');
    await issue(33, [4], 'sent');
    await issue(34, [1], 'draft');
    const before = world.parameters.get(SETTINGS)?.version;
    const refused = await world.cli(['lists', 'delete', '4']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /Newsletters not sent yet go to list 4 \(32, 31\): send or cancel them, or change their lists, first\./,
    );
    expect(world.parameters.get(SETTINGS)?.version).toBe(before);
    const unknown = await world.cli(['lists', 'delete', '99']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/List 99 does not exist/);
  });

  it('the operation answers list_in_use (409) and not_found (404); a send naming a deleted list is refused', async () => {
    const ssm = new SSMClient({
      endpoint: world.parameters.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
    });
    const deps = {
      ssm,
      parameter: SETTINGS,
      usage: new DynamoListUsage(world.client, world.tableName),
    };
    await issue(41, [4], 'draft');
    expect(await deleteList(deps, 4)).toMatchObject({ code: 'list_in_use', status: 409 });
    expect(await deleteList(deps, 99)).toMatchObject({ code: 'not_found', status: 404 });
    // A sent issue's list may go; sending that issue to the new afterwards may not reach its
    // former members, nor may a draft naming it (the settings changed under it).
    await issue(42, [1, 3], 'sent');
    const deleted = await deleteList(deps, 3);
    expect(isNewsletterError(deleted)).toBe(false);
    const campaigns = new DynamoCampaignStore(world.client, world.tableName);
    const send = await sendNewsletter(
      {
        ...worldDependencies(),
        campaigns,
        queue: {
          plan: () => Promise.reject(new Error('nothing may be queued')),
          send: () => Promise.reject(new Error('nothing may be queued')),
        },
      },
      { id: 42, newOnly: true },
      { apiRoot: 'http://localhost:3000/api/newsletter/v1' },
    );
    expect(send).toMatchObject({ code: 'unknown_list', status: 400 });
    expect((send as { message: string }).message).toMatch(
      /^Newsletter 42 goes to list 3, which does not exist/,
    );
    ssm.destroy();
  });
});
