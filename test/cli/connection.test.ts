import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDeadEndpoint } from '../support/dead-endpoint.ts';
import { runDynamoEndpoint } from '../support/run-dynamo.ts';
import { CLI_SETTINGS, type CliWorld, cliWorld, runCli } from './cli-harness.ts';

let world: CliWorld;

beforeAll(async () => {
  world = await cliWorld();
  await world.cli(['newsletters', 'create', '--subject', 'Hello']);
});

afterAll(async () => {
  await world.close();
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('--local', () => {
  it('reads DATA_DIR/local-endpoints.json, DATA_DIR from the environment', async () => {
    const result = await runCli(['--local', 'newsletters', 'list'], {
      cwd: '/',
      env: { DATA_DIR: world.dir },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^1\s+draft\s.*Hello$/m);
  });

  it('without the file, says to start the local service', async () => {
    const result = await runCli(['--local', 'lists', 'list'], { cwd: world.dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(join(world.dir, '.data', 'local-endpoints.json'));
    expect(result.stderr).toMatch(/does not exist\. Start the local service with `npm start`/);
  });

  it('a malformed file is an error naming the field', async () => {
    const dir = join(world.dir, 'malformed');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'local-endpoints.json'),
      JSON.stringify({ dynamodb: 'http://127.0.0.1:1', table: 'newsletter' }),
    );
    const result = await runCli(['--local', '--data-dir', dir, 'lists', 'list'], {
      cwd: world.dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/local-endpoints\.json: ssm: /);
  });

  it('a local service that is not running is reported as such', async () => {
    const dir = join(world.dir, 'stopped');
    await mkdir(dir, { recursive: true });
    const dead = await startDeadEndpoint();
    await writeFile(
      join(dir, 'local-endpoints.json'),
      JSON.stringify({ dynamodb: dead.url, ssm: dead.url, table: 'newsletter' }),
    );
    const result = await runCli(['--local', '--data-dir', dir, 'lists', 'list'], {
      cwd: world.dir,
    });
    await dead.stop();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Cannot reach the local service.*is `npm start` running\? \(ECONNRESET\)/,
    );
  });

  it('flags win over the file', async () => {
    const result = await world.cli(['--table', 'no-such-table', 'newsletters', 'list']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Table no-such-table not found/);
  });
});

describe('the environment the functions use', () => {
  it('NEWSLETTER_TABLE and NEWSLETTER_SETTINGS_PARAMETER, with endpoint and region flags', async () => {
    // Arrange: the standard credential chain reads these from the process environment.
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    vi.stubEnv('AWS_PROFILE', undefined);
    world.parameters.put(
      '/custom/settings',
      JSON.stringify({ ...CLI_SETTINGS, lists: [{ id: 7, name: 'Custom' }] }),
    );
    const env = {
      NEWSLETTER_TABLE: world.tableName,
      NEWSLETTER_SETTINGS_PARAMETER: '/custom/settings',
    };
    const flags = [
      '--region',
      'eu-west-1',
      '--endpoint-dynamodb',
      runDynamoEndpoint(),
      '--endpoint-ssm',
      world.parameters.endpoint,
    ];
    // Act
    const lists = await runCli([...flags, 'lists', 'list'], { cwd: world.dir, env });
    const newsletters = await runCli([...flags, 'newsletters', 'list'], { cwd: world.dir, env });
    const overridden = await runCli(
      [...flags, '--settings-parameter', '/newsletter/settings', 'lists', 'list'],
      { cwd: world.dir, env },
    );
    // Assert
    expect(lists.code).toBe(0);
    expect(lists.stdout).toMatch(/^7\s+no\s+no\s+Custom$/m);
    expect(newsletters.stdout).toMatch(/Hello$/m);
    expect(overridden.stdout).toMatch(/^4\s+no\s+no\s+Events$/m);
  });

  it('a missing settings parameter is named', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    const result = await runCli(
      [
        '--region',
        'eu-west-1',
        '--endpoint-ssm',
        world.parameters.endpoint,
        '--settings-parameter',
        '/nothing/here',
        'settings',
        'show',
      ],
      { cwd: world.dir },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/settings parameter \/nothing\/here does not exist/);
  });
});
