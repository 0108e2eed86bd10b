import type { Command } from 'commander';
import { CliError, EXIT } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { formatTable } from '../format-table.ts';
import { writeLine } from '../io.ts';
import { parseBoolean, parsePositiveInteger } from '../option-values.ts';
import { editableSettings, saveSettings } from './settings.ts';

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/** Sets or removes a boolean flag of a list; `false` is the default, so it is left out. */
function setFlag(list: Record<string, unknown>, key: 'private' | 'preassigned', on: boolean): void {
  if (on) list[key] = true;
  else delete list[key];
}

/**
 * `lists list|create|edit`. Lists live in the settings document: each change reads it, edits
 * the document as written (defaults stay implicit), validates it and writes it back.
 */
export function registerListsCommands(program: Command, context: CliContext): void {
  const lists = program
    .command('lists')
    .description('Show, create and edit lists (stored in the settings document)');

  lists
    .command('list')
    .description('Show every list')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const { settings } = await (await context.services()).settings();
      if (options.json) {
        writeLine(context.io.stdout, JSON.stringify(settings.lists, null, 2));
        return;
      }
      const rows = settings.lists.map((list) => [
        String(list.id),
        yesNo(list.private),
        yesNo(list.preassigned),
        list.name,
      ]);
      writeLine(context.io.stdout, formatTable(['ID', 'PRIVATE', 'PREASSIGNED', 'NAME'], rows));
    });

  lists
    .command('create')
    .description('Add a list')
    .requiredOption('--name <name>', 'list name (1-100 characters)')
    .option('--private', 'only keyed calls may assign it')
    .option('--preassigned', 'every new subscriber gets it')
    .option('--id <id>', 'list id (default: one more than the highest)', parsePositiveInteger)
    .action(
      async (options: { name: string; private?: boolean; preassigned?: boolean; id?: number }) => {
        const services = await context.services();
        const { stored, document } = await editableSettings(services);
        const ids = stored.settings.lists.map((list) => list.id);
        const id = options.id ?? Math.max(0, ...ids) + 1;
        if (ids.includes(id)) throw new CliError(`List ${id} already exists.`);
        const list: Record<string, unknown> = { id, name: options.name.trim() };
        setFlag(list, 'private', options.private === true);
        setFlag(list, 'preassigned', options.preassigned === true);
        document.lists.push(list);
        await saveSettings(context, services, document, stored.version);
        writeLine(context.io.stdout, `Created list ${id} (${String(list.name)}).`);
      },
    );

  lists
    .command('edit')
    .description('Change a list: name, private, preassigned')
    .argument('<id>', 'list id', parsePositiveInteger)
    .option('--name <name>', 'new name')
    .option('--private <true|false>', 'whether only keyed calls may assign it', parseBoolean)
    .option('--preassigned <true|false>', 'whether every new subscriber gets it', parseBoolean)
    .action(
      async (id: number, options: { name?: string; private?: boolean; preassigned?: boolean }) => {
        if (
          options.name === undefined &&
          options.private === undefined &&
          options.preassigned === undefined
        ) {
          throw new CliError(
            'Nothing to change: pass --name, --private or --preassigned.',
            EXIT.usage,
          );
        }
        const services = await context.services();
        const { stored, document } = await editableSettings(services);
        const list = document.lists.find((candidate) => candidate.id === id);
        if (!list) throw new CliError(`List ${id} does not exist.`);
        if (options.name !== undefined) list.name = options.name.trim();
        if (options.private !== undefined) setFlag(list, 'private', options.private);
        if (options.preassigned !== undefined) setFlag(list, 'preassigned', options.preassigned);
        await saveSettings(context, services, document, stored.version);
        writeLine(context.io.stdout, `Updated list ${id}.`);
      },
    );
}
