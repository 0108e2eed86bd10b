import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'csv-parse';
import { sourceDelimiter, sourceMapping } from '../../shared/domain/import-mapping.ts';
import { type ImportPreview, PreviewCounter } from '../../shared/domain/import-preview.ts';
import type { Settings } from '../../shared/domain/settings-schema.ts';
import { SubscriberCsvError } from '../../shared/domain/subscriber-csv.ts';
import { CliError } from '../cli-error.ts';
import { formatTable } from '../format-table.ts';
import type { CliIo } from '../io.ts';
import { writeLine } from '../io.ts';
import { numberedRecords, readHeaderLine } from './csv-rows.ts';
import type { ImportOptions } from './import-subscribers.ts';

/** Refusals printed; the preview counts them all. */
const PRINTED_REFUSALS = 20;

/**
 * `subscribers import --preview` ([import.preview]): reads the whole file as the import would,
 * maps and checks every row, and writes nothing: no subscriber, no checkpoint, no error report,
 * no request to the table.
 *
 * @throws CliError for a missing, empty, unreadable or wrong-headed file.
 */
export async function previewImport(
  settings: Settings,
  options: Pick<ImportOptions, 'file' | 'source' | 'status' | 'lists'>,
  io: CliIo,
): Promise<ImportPreview> {
  const file = resolve(io.cwd, options.file);
  let headerLine: string;
  try {
    headerLine = await readHeaderLine(file);
  } catch {
    throw new CliError(`Cannot read ${options.file}: no such file`);
  }
  const input = createReadStream(file);
  const parser = parse({
    bom: true,
    delimiter: sourceDelimiter(options.source, headerLine),
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
  });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  let counter: PreviewCounter | undefined;
  try {
    for await (const { record, line } of numberedRecords(parser)) {
      if (counter) {
        counter.add(line, record);
        continue;
      }
      try {
        const mapping = sourceMapping(options.source, record, settings, {
          defaultStatus: options.status,
          ...(options.lists ? { lists: options.lists } : {}),
        });
        counter = new PreviewCounter(mapping, settings);
      } catch (error) {
        if (error instanceof SubscriberCsvError) throw new CliError(error.message);
        throw error;
      }
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      `${options.file} is not valid CSV: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    input.destroy();
  }
  if (!counter) throw new CliError(`${options.file} is empty: the first row must be the header.`);
  return counter.result();
}

/** The preview as the CLI prints it: the columns, the status rule, what would be written. */
export function printPreview(preview: ImportPreview, io: CliIo): void {
  const { stdout } = io;
  writeLine(stdout, `Nothing was written. Read as: ${preview.source}.`);
  writeLine(
    stdout,
    formatTable(
      ['COLUMN', 'BECOMES'],
      preview.columns.map(({ column, field }) => [column, field]),
    ),
  );
  writeLine(stdout, `Status: ${preview.status_rule}.`);
  const statuses = Object.entries(preview.statuses)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  writeLine(
    stdout,
    `${preview.rows} rows: would write ${statuses || 'none'}; ${preview.refused} refused.`,
  );
  if (preview.attributes_not_imported.length > 0)
    writeLine(
      stdout,
      `Attributes that name no profile field, not imported: ${preview.attributes_not_imported.join(', ')}`,
    );
  for (const refusal of preview.refusals.slice(0, PRINTED_REFUSALS))
    writeLine(stdout, `  line ${refusal.line} ${refusal.email}: ${refusal.reason}`);
  if (preview.refused > PRINTED_REFUSALS)
    writeLine(stdout, `  ...and ${preview.refused - PRINTED_REFUSALS} more refused.`);
}
