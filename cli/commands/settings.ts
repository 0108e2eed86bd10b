import type { Command } from 'commander';
import {
  readSettingsText,
  type SettingsWrite,
} from '../../shared/adapters/parameters/settings-document.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { parseSettings, SettingsError } from '../../shared/domain/parse-settings.ts';
import type { Settings } from '../../shared/domain/settings-schema.ts';
import { replaceSettings } from '../../shared/operations/settings/manage-settings.ts';
import { CliError } from '../cli-error.ts';
import type { Services } from '../connection/services.ts';
import type { CliContext } from '../context.ts';
import { writeLine } from '../io.ts';
import { readTextInput } from '../option-values.ts';

const CACHE_NOTE =
  'Running functions pick the change up within 5 minutes (their parameter cache; 5 seconds under npm start).';

function summary(settings: Settings): string {
  return `${settings.lists.length} list(s), ${settings.profile_fields.length} profile field(s), opt-in ${settings.opt_in}`;
}

/** Parses JSON text, naming the source in the error. */
function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${source}: not valid JSON (${(error as Error).message})`);
  }
}

/** Reports a settings write, and a version jump: someone else wrote in between. */
export function reportSettingsWrite(
  context: CliContext,
  services: Services,
  written: SettingsWrite,
  readVersion: number | undefined,
): void {
  const name = services.connection.settingsParameter;
  writeLine(
    context.io.stderr,
    `Settings written to ${name} (version ${written.version}, ${written.tier} tier, ${written.bytes} bytes). ${CACHE_NOTE}`,
  );
  if (readVersion !== undefined && written.version !== readVersion + 1) {
    writeLine(
      context.io.stderr,
      `warning: the settings changed while this command ran (version ${readVersion} became ${written.version - 1} before this write). Check them with \`newsletter settings show\`.`,
    );
  }
}

/** `settings show|validate|set`: the settings document in Parameter Store. */
export function registerSettingsCommands(program: Command, context: CliContext): void {
  const settings = program
    .command('settings')
    .description('Show, validate and replace the settings (an SSM String parameter, JSON)');

  settings
    .command('show')
    .description('Print the stored settings document')
    .option('--effective', 'print the settings as the functions use them, defaults filled in')
    .action(async (options: { effective?: boolean }) => {
      const services = await context.services();
      const name = services.connection.settingsParameter;
      if (options.effective) {
        const stored = await services.settings();
        writeLine(context.io.stdout, JSON.stringify(stored.settings, null, 2));
        return;
      }
      // Shown even when invalid: the operator needs to see what is wrong with it.
      const stored = await readSettingsText(services.ssm, name);
      if (!stored) {
        throw new CliError(
          `The settings parameter ${name} does not exist in ${services.connection.description}.`,
        );
      }
      let text = stored.text;
      try {
        text = JSON.stringify(JSON.parse(stored.text), null, 2);
      } catch {
        // Not JSON: print it as stored.
      }
      writeLine(context.io.stdout, text);
    });

  settings
    .command('validate')
    .description(
      'Check a settings file (or, without --file, the stored settings) with the rules the functions apply',
    )
    .option('--file <path>', 'settings JSON file ("-" reads stdin)')
    .action(async (options: { file?: string }) => {
      let text: string;
      let source: string;
      if (options.file !== undefined) {
        text = await readTextInput(options.file, context.io);
        source = options.file === '-' ? 'stdin' : options.file;
      } else {
        const services = await context.services();
        const name = services.connection.settingsParameter;
        const stored = await readSettingsText(services.ssm, name);
        if (!stored) throw new CliError(`The settings parameter ${name} does not exist.`);
        text = stored.text;
        source = name;
      }
      try {
        writeLine(context.io.stdout, `${source}: valid (${summary(parseSettings(text))})`);
      } catch (error) {
        if (error instanceof SettingsError) throw new CliError(`${source}: ${error.message}`);
        throw error;
      }
    });

  settings
    .command('set')
    .description(
      'Validate a settings file and store it (Advanced tier when it exceeds 4 KB); an invalid file is refused',
    )
    .requiredOption('--file <path>', 'settings JSON file ("-" reads stdin)')
    .action(async (options: { file: string }) => {
      const source = options.file === '-' ? 'stdin' : options.file;
      const text = await readTextInput(options.file, context.io);
      const document = parseJson(text, source);
      // Refused before connecting: a bad file needs no credentials to be told so.
      try {
        parseSettings(document);
      } catch (error) {
        if (error instanceof SettingsError) {
          throw new CliError(`${source}: ${error.message} (nothing was written)`);
        }
        throw error;
      }
      const services = await context.services();
      const replaced = await replaceSettings(
        { ssm: services.ssm, parameter: services.connection.settingsParameter },
        document,
      );
      if (isNewsletterError(replaced))
        throw new CliError(`${source}: ${replaced.message} (nothing was written)`);
      reportSettingsWrite(context, services, replaced.written, undefined);
      writeLine(context.io.stdout, `Settings stored: ${summary(replaced.parsed)}.`);
    });
}
