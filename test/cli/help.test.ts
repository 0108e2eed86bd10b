import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';

const cwd = tmpdir();

/** Every command and command group, with a word its help must contain. */
const COMMANDS: [string[], RegExp][] = [
  [[], /Usage: newsletter \[options\] \[command\]/],
  [['key'], /Usage: newsletter key/],
  [['key', 'set'], /--value <key>/],
  [['key', 'rotate'], /--value <key>/],
  [['settings'], /Usage: newsletter settings/],
  [['settings', 'show'], /--effective/],
  [['settings', 'validate'], /--file <path>/],
  [['settings', 'set'], /--file <path>/],
  [['lists'], /Usage: newsletter lists/],
  [['lists', 'list'], /--json/],
  [['lists', 'create'], /--preassigned/],
  [['lists', 'edit'], /--private <true\|false>/],
  [['newsletters'], /Usage: newsletter newsletters/],
  [['newsletters', 'list'], /--all/],
  [['newsletters', 'create'], /--subject <subject>/],
  [['newsletters', 'edit'], /--html <file>/],
  [['newsletters', 'send'], /Send an issue/],
  [['newsletters', 'pause'], /Pause a sending issue/],
  [['newsletters', 'resume'], /Resume a paused issue/],
  [['newsletters', 'cancel'], /Cancel a scheduled, sending or paused issue/],
  [['subscribers'], /Usage: newsletter subscribers/],
  [['subscribers', 'export'], /--format <format>/],
  [['subscribers', 'import'], /--resume/],
  [['subscribers', 'unasked'], /never sent an activation/],
];

describe('--help', () => {
  it.each(COMMANDS)('newsletter %j --help exits 0 and prints its usage', async (command, usage) => {
    // Arrange / Act: no service is needed, so none is configured.
    const result = await runCli([...command, '--help'], { cwd });
    // Assert
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: newsletter/);
    expect(result.stdout).toMatch(usage);
    expect(result.stderr).toBe('');
  });

  it('the program help documents the configuration variables and --local', async () => {
    const { stdout } = await runCli(['--help'], { cwd });
    expect(stdout).toContain('NEWSLETTER_TABLE');
    expect(stdout).toContain('NEWSLETTER_SETTINGS_PARAMETER');
    expect(stdout).toContain('local-endpoints.json');
  });
});

describe('usage errors', () => {
  it('an unknown command exits 2 and says so on stderr', async () => {
    const result = await runCli(['frobnicate'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(result.stdout).toBe('');
  });

  it('an unknown subcommand exits 2', async () => {
    const result = await runCli(['lists', 'remove', '3'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'remove'/);
  });

  it('no command at all prints the help on stderr and exits 2', async () => {
    const result = await runCli([], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Usage: newsletter/);
  });

  it('an unknown option and a bad option value exit 2 naming them', async () => {
    const unknown = await runCli(['lists', 'list', '--colour'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option '--colour'/);
    const bad = await runCli(['lists', 'edit', '3', '--private', 'maybe'], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--private.*maybe.*Expected true or false/);
  });

  it('a DynamoDB command without any table configured exits 1 and says how to name one', async () => {
    const result = await runCli(['newsletters', 'list'], { cwd, env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/No table configured: pass --table NAME, set NEWSLETTER_TABLE/);
  });

  it('--version prints the package version', async () => {
    const result = await runCli(['--version'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
