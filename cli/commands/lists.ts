import type { Command } from 'commander';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import {
  createList,
  deleteList,
  editList,
  type ListDependencies,
} from '../../shared/operations/lists/manage-lists.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { Services } from '../connection/services.ts';
import type { CliContext } from '../context.ts';
import { formatTable } from '../format-table.ts';
import { writeLine } from '../io.ts';
import { parseBoolean, parsePositiveInteger } from '../option-values.ts';
import { reportSettingsWrite } from './settings.ts';

/** The shared list operations over this run's SSM client and settings parameter. */
function listDependencies(services: Services): ListDependencies {
  return { ssm: services.ssm, parameter: services.connection.settingsParameter };
}

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/**
 * `lists list|create|edit|delete`. Lists live in the settings document: each change reads it,
 * edits the document as written (defaults stay implicit), validates it and writes it back.
 */
export function registerListsCommands(program: Command, context: CliContext): void {
  const lists = program
    .command('lists')
    .description('Show, create, edit and delete lists (stored in the settings document)');

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
        const created = await createList(listDependencies(services), {
          name: options.name,
          private: options.private === true,
          preassigned: options.preassigned === true,
          ...(options.id === undefined ? {} : { id: options.id }),
        });
        if (isNewsletterError(created)) throw new CliError(created.message);
        reportSettingsWrite(context, services, created.written, created.readVersion);
        writeLine(context.io.stdout, `Created list ${created.list.id} (${created.list.name}).`);
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
        const edited = await editList(listDependencies(services), id, {
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.private === undefined ? {} : { private: options.private }),
          ...(options.preassigned === undefined ? {} : { preassigned: options.preassigned }),
        });
        if (isNewsletterError(edited))
          throw new CliError(
            edited.code === 'not_found' ? `List ${id} does not exist.` : edited.message,
          );
        reportSettingsWrite(context, services, edited.written, edited.readVersion);
        writeLine(context.io.stdout, `Updated list ${id}.`);
      },
    );

  lists
    .command('delete')
    .description(
      'Delete a list no unsent newsletter names; its id is never given to another list, and its members keep it',
    )
    .argument('<id>', 'list id', parsePositiveInteger)
    .action(async (id: number) => {
      const services = await context.services();
      const deleted = await deleteList(
        { ...listDependencies(services), usage: services.listUsage() },
        id,
      );
      if (isNewsletterError(deleted))
        throw new CliError(
          deleted.code === 'not_found' ? `List ${id} does not exist.` : deleted.message,
        );
      reportSettingsWrite(context, services, deleted.written, deleted.readVersion);
      writeLine(
        context.io.stdout,
        `Deleted list ${id} (${deleted.list.name}). Its members keep the id; no list will have it again.`,
      );
    });
}
