import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { parseSettings } from '../../shared/domain/parse-settings.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { createNewsletter } from '../../shared/newsletter.ts';
import type { Dependencies } from '../../shared/operations/dependencies.ts';
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
