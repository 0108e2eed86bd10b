import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../cli/admin/api-key-parameter.ts';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { CLI_SETTINGS, type CliWorld, cliWorld } from './cli-harness.ts';

const KEY = ENV_DEFAULTS.apiKeyParameter;
const SETTINGS = ENV_DEFAULTS.settingsParameter;

let world: CliWorld;

beforeAll(async () => {
  world = await cliWorld();
});

afterAll(async () => {
  await world.close();
});

describe('key set / key rotate', () => {
  it('key rotate without a key refuses and points at key set', async () => {
    const result = await world.cli(['key', 'rotate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no API key to rotate.*newsletter key set/);
    expect(world.parameters.get(KEY)).toBeUndefined();
  });

  it('key set generates a 32-byte base64url key, stores it as SecureString and prints it once', async () => {
    // Act
    const result = await world.cli(['key', 'set']);
    // Assert
    expect(result.code).toBe(0);
    const printed = result.stdout.trim();
    expect(printed).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(printed, 'base64url')).toHaveLength(32);
    expect(result.stdout).toBe(`${printed}\n`);
    expect(result.stderr).not.toContain(printed);
    expect(world.parameters.get(KEY)).toMatchObject({ type: 'SecureString', value: printed });
  });

  it('key rotate replaces the key with a new one and mentions the functions cache', async () => {
    // Arrange: a key of this test's own, whatever the tests before it did.
    world.parameters.put(KEY, 'key-before-rotation-0123456789', 'SecureString');
    const before = world.parameters.get(KEY);
    const result = await world.cli(['key', 'rotate']);
    expect(result.code).toBe(0);
    const printed = result.stdout.trim();
    expect(printed).not.toBe(before?.value);
    expect(world.parameters.get(KEY)).toMatchObject({
      type: 'SecureString',
      value: printed,
      version: (before?.version ?? 0) + 1,
    });
    expect(result.stderr).toMatch(/up to 5 minutes/);
  });

  it('key set --value stores the given key without echoing it; a weak one is refused', async () => {
    const chosen = 'chosen-key-0123456789-abcdef';
    const result = await world.cli(['key', 'set', '--value', chosen]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(world.parameters.get(KEY)?.value).toBe(chosen);

    const weak = await world.cli(['key', 'set', '--value', 'short']);
    expect(weak.code).toBe(2);
    expect(weak.stderr).toMatch(/at least 16 characters/);
    const spaced = await world.cli(['key', 'set', '--value', 'has a space in the key']);
    expect(spaced.code).toBe(2);
    expect(world.parameters.get(KEY)?.value).toBe(chosen);
  });

  it('key set --value - reads the key from standard input', async () => {
    const result = await world.cli(['key', 'set', '--value', '-'], {
      stdin: 'from-stdin-key-0123456789\n',
    });
    expect(result.code).toBe(0);
    expect(world.parameters.get(KEY)?.value).toBe('from-stdin-key-0123456789');
  });
});

describe('settings', () => {
  const file = (name: string) => join(world.dir, name);

  it('settings show prints the stored document; --effective fills in the defaults', async () => {
    const shown = await world.cli(['settings', 'show']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(CLI_SETTINGS);
    const effective = await world.cli(['settings', 'show', '--effective']);
    expect(JSON.parse(effective.stdout)).toMatchObject({
      opt_in: 'double',
      profile_fields: [{ id: 'city' }, { id: 'company' }],
    });
  });

  it('settings validate accepts a good file', async () => {
    await writeFile(file('good.json'), JSON.stringify(CLI_SETTINGS));
    const result = await world.cli(['settings', 'validate', '--file', 'good.json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/good\.json: valid \(4 list\(s\), 2 profile field\(s\)/);
  });

  it('settings validate names the bad field of a bad file and exits non-zero', async () => {
    await writeFile(
      file('bad.json'),
      JSON.stringify({ ...CLI_SETTINGS, sender: { address: 'not-an-address' } }),
    );
    const result = await world.cli(['settings', 'validate', '--file', 'bad.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/bad\.json: settings\.sender\.address: /);
    expect(result.stdout).toBe('');

    await writeFile(file('broken.json'), '{"lists": [');
    const broken = await world.cli(['settings', 'validate', '--file', 'broken.json']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/not valid JSON/);

    const missing = await world.cli(['settings', 'validate', '--file', 'nowhere.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Cannot read nowhere\.json: no such file/);
  });

  it('settings validate without --file checks the stored settings', async () => {
    const result = await world.cli(['settings', 'validate']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${SETTINGS}: valid`);
  });

  it('settings set refuses an invalid file, naming the field, and writes nothing', async () => {
    const before = world.parameters.get(SETTINGS);
    await writeFile(
      file('dup.json'),
      JSON.stringify({
        ...CLI_SETTINGS,
        lists: [
          { id: 1, name: 'A' },
          { id: 1, name: 'B' },
        ],
      }),
    );
    const result = await world.cli(['settings', 'set', '--file', 'dup.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/lists: ids must be unique.*nothing was written/);
    expect(world.parameters.get(SETTINGS)?.version).toBe(before?.version);
  });

  it('settings set stores a valid file as a String parameter in the standard tier', async () => {
    const changed = { ...CLI_SETTINGS, opt_in: 'single' as const };
    await writeFile(file('single.json'), JSON.stringify(changed));
    const result = await world.cli(['settings', 'set', '--file', 'single.json']);
    expect(result.code).toBe(0);
    const stored = world.parameters.get(SETTINGS);
    expect(stored).toMatchObject({ type: 'String', tier: 'Standard' });
    expect(JSON.parse(stored?.value ?? '')).toEqual(changed);
  });

  it('settings over 4 KB go to the Advanced tier', async () => {
    const long = {
      ...CLI_SETTINGS,
      texts: { welcome: { subject: 'Welcome', body: `Hello {name},\n${'x'.repeat(5000)}` } },
    };
    await writeFile(file('long.json'), JSON.stringify(long));
    const result = await world.cli(['settings', 'set', '--file', 'long.json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/Advanced tier/);
    const stored = world.parameters.get(SETTINGS);
    expect(stored?.tier).toBe('Advanced');
    expect(Buffer.byteLength(stored?.value ?? '')).toBeGreaterThan(4096);
    expect(JSON.parse(stored?.value ?? '')).toEqual(long);
  });

  it('settings over 8 KB are refused', async () => {
    const huge = {
      ...CLI_SETTINGS,
      texts: {
        welcome: { subject: 'W', body: 'y'.repeat(5000) },
        admin: { subject: 'A', body: 'z'.repeat(5000) },
      },
    };
    const before = world.parameters.get(SETTINGS)?.version;
    await writeFile(file('huge.json'), JSON.stringify(huge));
    const result = await world.cli(['settings', 'set', '--file', 'huge.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/at most 8192/);
    expect(world.parameters.get(SETTINGS)?.version).toBe(before);
  });
});

describe('[config.key-shape] generated keys', () => {
  it('never start with "-", which a command line would read as an option', () => {
    // The first draw encodes to "-…" (0xF8: the 6 bits 111110, base64url "-"); it is drawn again.
    const draws = [Buffer.alloc(32, 0xf8), Buffer.alloc(32, 0x41)];
    const key = generateApiKey(() => draws.shift() ?? Buffer.alloc(32));
    expect(Buffer.alloc(32, 0xf8).toString('base64url').startsWith('-')).toBe(true);
    expect(key).toBe(Buffer.alloc(32, 0x41).toString('base64url'));
    expect(draws).toHaveLength(0);
    for (let i = 0; i < 500; i += 1)
      expect(generateApiKey()).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
  });
});
