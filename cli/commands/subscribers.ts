import { basename } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { listIdsOf } from '../../shared/domain/import-mapping.ts';
import { IMPORT_SOURCES, type ImportSource } from '../../shared/domain/import-sources.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { explainError } from '../explain-error.ts';
import { formatTable } from '../format-table.ts';
import { writeLine } from '../io.ts';
import { parsePositiveInteger } from '../option-values.ts';
import { type ExportFormat, exportSubscribers } from '../subscribers/export-subscribers.ts';
import { ImportStopped, importSubscribers } from '../subscribers/import-subscribers.ts';
import { listUnasked } from '../subscribers/list-unasked.ts';
import { previewImport, printPreview } from '../subscribers/preview-import.ts';
import { reindexLists } from '../subscribers/reindex-lists.ts';

const DEFAULT_CONCURRENCY = 16;
const DEFAULT_CHECKPOINT_EVERY = 500;

const plural = (count: number, one: string, many: string): string =>
  `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

function parseConcurrency(value: string): number {
  const number = parsePositiveInteger(value);
  if (number > 100) throw new InvalidArgumentError('Expected at most 100.');
  return number;
}

function parseListIds(value: string): number[] {
  const ids = listIdsOf(value);
  if (!ids || ids.length === 0)
    throw new InvalidArgumentError('Expected list ids separated by commas.');
  return ids;
}

/** `subscribers export|import`: the whole subscriber base as CSV (or JSON) and back. */
export function registerSubscribersCommands(program: Command, context: CliContext): void {
  const subscribers = program
    .command('subscribers')
    .description('Export and import subscribers (CSV); list those never asked to confirm');

  subscribers
    .command('export')
    .description(
      'Write every subscriber, oldest first, as CSV (id,email,name,surname,gender,lists,status,created,updated,profile_<id>...) or JSON',
    )
    .addOption(
      new Option('--format <format>', 'output format').choices(['csv', 'json']).default('csv'),
    )
    .option('--out <file>', 'write to this file (default: standard output)')
    .addOption(
      new Option('--page-size <n>', 'items per Query page')
        .argParser(parsePositiveInteger)
        .hideHelp(),
    )
    .action(async (options: { format: ExportFormat; out?: string; pageSize?: number }) => {
      const services = await context.services();
      const { settings } = await services.settings();
      const count = await exportSubscribers(services, settings, options, context.io);
      writeLine(
        context.io.stderr,
        `Exported ${plural(count, 'subscriber', 'subscribers')}${options.out ? ` to ${options.out}` : ''}.`,
      );
    });

  subscribers
    .command('reindex')
    .description(
      'Build the list index campaigns plan from and the counts pages use, for subscribers written before this version (once, after upgrading; repeatable)',
    )
    .action(async () => {
      const services = await context.services();
      const count = await reindexLists(services.store(), context.io);
      writeLine(
        context.io.stderr,
        `Indexed ${plural(count, 'subscriber', 'subscribers')}; campaigns plan from the list index and pages count.`,
      );
    });

  subscribers
    .command('unasked')
    .description(
      'List the S (unconfirmed) subscribers who were never sent an activation mail: a trusted call stored them without asking (send_emails=false, subscribers/add, an import), so they never expire',
    )
    .addOption(
      new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'),
    )
    .action(async (options: { format: 'table' | 'json' }) => {
      const services = await context.services();
      const found = await listUnasked(services);
      if (options.format === 'json') {
        writeLine(context.io.stdout, JSON.stringify(found, null, 2));
        return;
      }
      if (found.length === 0) {
        writeLine(context.io.stdout, 'Every S subscriber has been sent an activation.');
        return;
      }
      const rows = found.map((s) => [String(s.id), s.created, s.channel, s.email]);
      writeLine(context.io.stdout, formatTable(['ID', 'CREATED', 'CHANNEL', 'EMAIL'], rows));
      writeLine(
        context.io.stderr,
        `${plural(found.length, 'subscriber', 'subscribers')} never asked to confirm.`,
      );
    });

  subscribers
    .command('import')
    .description(
      "Add the subscribers of a CSV file (the format export writes, or another service's export with --from) with the rules of subscribers/add; existing addresses are left alone and reported, rejected rows go to FILE.errors.csv, progress is checkpointed to FILE.checkpoint",
    )
    .requiredOption(
      '--file <file>',
      'CSV file with a header row; only the email column is required',
    )
    .addOption(
      new Option(
        '--from <source>',
        "whose export the file is: ours, the original plugin's, Mailchimp's, listmonk's or Substack's",
      )
        .choices([...IMPORT_SOURCES])
        .default('newsletter'),
    )
    .option(
      '--preview',
      'print each column and the field it becomes, and the rows by status, writing nothing',
    )
    .option(
      '--lists <ids>',
      'list ids (comma-separated) for the rows that name no list',
      parseListIds,
    )
    .addOption(
      new Option(
        '--status <status>',
        "status of rows without a status cell, and of the people a source mails without naming their state (a source's unsubscribed and bounced people keep theirs)",
      )
        .choices(['S', 'C'])
        .default('C'),
    )
    .option(
      '--resume',
      'continue after the row in FILE.checkpoint (from the start when there is none)',
    )
    .option(
      '--limit <rows>',
      'stop after this many rows, keeping the checkpoint for --resume',
      parsePositiveInteger,
    )
    .option(
      '--concurrency <n>',
      `rows written at once (default ${DEFAULT_CONCURRENCY})`,
      parseConcurrency,
    )
    .option(
      '--checkpoint-every <rows>',
      `rows between checkpoint writes (default ${DEFAULT_CHECKPOINT_EVERY})`,
      parsePositiveInteger,
    )
    .action(
      async (options: {
        file: string;
        from: ImportSource;
        preview?: boolean;
        lists?: number[];
        status: 'S' | 'C';
        resume?: boolean;
        limit?: number;
        concurrency?: number;
        checkpointEvery?: number;
      }) => {
        if (
          options.from === 'mailchimp' &&
          options.status === 'C' &&
          /nonsubscribed/i.test(basename(options.file))
        )
          throw new CliError(
            "Mailchimp's non-subscribed contacts never opted in to mail, and their file has the subscribed file's columns: import it with --status S, or leave it out.",
          );
        const services = await context.services();
        const { settings } = await services.settings();
        const { stdout } = context.io;
        const source = {
          file: options.file,
          source: options.from,
          status: options.status,
          ...(options.lists ? { lists: options.lists } : {}),
        };
        if (options.preview) {
          printPreview(await previewImport(settings, source, context.io), context.io);
          return;
        }
        try {
          const summary = await importSubscribers(
            services,
            settings,
            {
              ...source,
              resume: options.resume === true,
              concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
              checkpointEvery: options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY,
              ...(options.limit ? { limit: options.limit } : {}),
            },
            context.io,
          );
          const parts = [
            `Imported ${plural(summary.imported, 'new subscriber', 'new subscribers')}`,
            `${plural(summary.exists, 'address', 'addresses')} already existed`,
            `${plural(summary.rejected, 'row', 'rows')} rejected`,
          ];
          if (summary.skipped > 0) {
            parts.push(`${plural(summary.skipped, 'row', 'rows')} done by an earlier run skipped`);
          }
          writeLine(stdout, `${parts.join('; ')}.`);
          if (summary.report) writeLine(stdout, `Report of rows not imported: ${summary.report}`);
          if (summary.remaining) {
            writeLine(
              stdout,
              `Stopped after ${plural(options.limit ?? 0, 'row', 'rows')} (--limit). Run again with --resume to continue.`,
            );
          }
          if (summary.rejected > 0) context.exitCode = EXIT.failed;
        } catch (error) {
          if (!(error instanceof ImportStopped)) throw error;
          const where =
            error.checkpointRow === undefined
              ? 'No row was imported.'
              : `Every row up to row ${error.checkpointRow} is done; run the same command with --resume to continue.`;
          throw new CliError(
            `The import stopped: ${explainError(error.cause, services.connection)}\n${where}`,
          );
        }
      },
    );
}
