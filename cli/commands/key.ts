import type { Command } from 'commander';
import {
  apiKeyExists,
  apiKeyProblem,
  generateApiKey,
  writeApiKey,
} from '../admin/api-key-parameter.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { writeLine } from '../io.ts';
import { readTextInput } from '../option-values.ts';

/** How long the functions may keep using a replaced key: their parameter cache lifetime. */
const CACHE_NOTE =
  'Running functions may accept the previous key for up to 5 minutes (their parameter cache, NEWSLETTER_PARAMETER_CACHE_SECONDS; 5 seconds under npm start).';

/** The key to store: given, read from standard input (`-`), or generated. */
async function chooseKey(
  value: string | undefined,
  context: CliContext,
): Promise<{ key: string; generated: boolean }> {
  if (value === undefined) return { key: generateApiKey(), generated: true };
  // `-` keeps the key out of shell history and the process list.
  const key = value === '-' ? (await readTextInput('-', context.io)).replace(/\r?\n$/, '') : value;
  const problem = apiKeyProblem(key);
  if (problem) throw new CliError(`--value: ${problem}`, EXIT.usage);
  return { key, generated: false };
}

async function storeKey(
  context: CliContext,
  value: string | undefined,
  mustExist: boolean,
): Promise<void> {
  const services = await context.services();
  const name = services.connection.apiKeyParameter;
  if (mustExist && !(await apiKeyExists(services.ssm, name))) {
    throw new CliError(
      `There is no API key to rotate: ${name} does not exist. Create one with \`newsletter key set\`.`,
    );
  }
  const { key, generated } = await chooseKey(value, context);
  const version = await writeApiKey(services.ssm, name, key);
  const { stdout, stderr } = context.io;
  // The key alone on stdout, so `KEY=$(newsletter key set)` captures exactly the key.
  if (generated) writeLine(stdout, key);
  writeLine(stderr, `API key stored in ${name} (SecureString, version ${version}).`);
  if (generated) writeLine(stderr, 'It is shown only this once: give it to the callers now.');
  if (mustExist || version > 1) writeLine(stderr, CACHE_NOTE);
}

/** `key set`, `key rotate`: the API key in Parameter Store. */
export function registerKeyCommands(program: Command, context: CliContext): void {
  const key = program
    .command('key')
    .description('Manage the API key (an SSM SecureString parameter)');

  key
    .command('set')
    .description(
      'Create or replace the API key. Without --value a random 32-byte key (base64url) is generated and printed once.',
    )
    .option('--value <key>', 'use this key instead of generating one ("-" reads it from stdin)')
    .action(async (options: { value?: string }) => {
      await storeKey(context, options.value, false);
    });

  key
    .command('rotate')
    .description(
      'Replace the existing API key with a newly generated one (printed once). Fails when no key exists yet.',
    )
    .option('--value <key>', 'use this key instead of generating one ("-" reads it from stdin)')
    .action(async (options: { value?: string }) => {
      await storeKey(context, options.value, true);
    });
}
