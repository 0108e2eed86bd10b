import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse } from 'csv-parse';
import { IdBlocks } from '../../shared/adapters/store/id-blocks.ts';
import {
  type SourceMapping,
  sourceDelimiter,
  sourceMapping,
} from '../../shared/domain/import-mapping.ts';
import type { ImportSource } from '../../shared/domain/import-sources.ts';
import type { Settings } from '../../shared/domain/settings-schema.ts';
import { SubscriberCsvError } from '../../shared/domain/subscriber-csv.ts';
import {
  type ImportContext,
  importSubscriber,
} from '../../shared/operations/subscribers/import-subscriber.ts';
import { CliError } from '../cli-error.ts';
import type { Services } from '../connection/services.ts';
import { type CliIo, writeLine } from '../io.ts';
import { startProgress } from '../progress.ts';
import { checkpointPath, readCheckpoint, removeCheckpoint, writeCheckpoint } from './checkpoint.ts';
import { numberedRecords, readHeaderLine } from './csv-rows.ts';
import { ErrorReport } from './error-report.ts';

/** Options of `subscribers import`. */
export interface ImportOptions {
  readonly file: string;
  /** Whose export the file is ([import.sources]). */
  readonly source: ImportSource;
  /** Status of rows whose status cell is empty or absent, or whose source names no state. */
  readonly status: 'S' | 'C';
  /** Lists for rows that name none. */
  readonly lists?: readonly number[];
  readonly resume: boolean;
  /** Rows in flight at once. */
  readonly concurrency: number;
  /** Rows between checkpoint writes. */
  readonly checkpointEvery: number;
  /** Stop after this many rows (counted in this run), keeping the checkpoint for `--resume`. */
  readonly limit?: number;
}

/** What an import run did. */
export interface ImportSummary {
  readonly imported: number;
  readonly exists: number;
  readonly rejected: number;
  /** Rows skipped because a previous run had processed them (`--resume`). */
  readonly skipped: number;
  /** Whether rows remain (the run stopped at `--limit`). */
  readonly remaining: boolean;
  /** The error report, when it has lines. */
  readonly report?: string;
}

/** The import stopped before the end: why, and where `--resume` continues (none: nothing done). */
export class ImportStopped extends Error {
  constructor(
    cause: unknown,
    readonly checkpointRow: number | undefined,
  ) {
    super('import stopped', { cause });
    this.name = 'ImportStopped';
  }
}

type Outcome = 'imported' | 'exists' | 'rejected';

/** csv-parse's errors carry a `CSV_...` code (its class does not survive the stream wrapping). */
function isCsvError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('CSV_');
}

/**
 * Tracks which rows are done and the highest row number up to which every row is done: the
 * checkpoint. Rows are started in file order but finish in any order.
 */
class Watermark {
  readonly #inFlight = new Set<number>();
  #lastStarted = 0;

  constructor(start: number) {
    this.#lastStarted = start;
  }

  start(row: number): void {
    this.#inFlight.add(row);
    this.#lastStarted = row;
  }

  /** A row handled without a request (skipped, or rejected on sight). */
  pass(row: number): void {
    this.#lastStarted = row;
  }

  finish(row: number): void {
    this.#inFlight.delete(row);
  }

  /** Every row with a number up to this one is done. */
  get row(): number {
    return this.#inFlight.size === 0 ? this.#lastStarted : Math.min(...this.#inFlight) - 1;
  }
}

/**
 * Streams a subscriber CSV into the table: each row is validated with the rules of
 * `add_subscriber` and written with its conditional create, `concurrency` rows at a time. Only
 * the rows in flight are in memory. An address that exists is reported as such and left alone,
 * so a row processed twice (after a crash, rows between the checkpoint and the crash are) never
 * creates a duplicate. A failure of DynamoDB itself stops the run with the checkpoint at the last
 * row before which everything is done.
 *
 * @throws ImportStopped when the run stops on a failure; CliError for an unusable file.
 */
export async function importSubscribers(
  services: Services,
  settings: Settings,
  options: ImportOptions,
  io: CliIo,
): Promise<ImportSummary> {
  const file = resolve(io.cwd, options.file);
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    throw new CliError(`Cannot read ${options.file}: no such file`);
  }
  const checkpointFile = checkpointPath(file);
  const previous = readCheckpoint(checkpointFile);
  if (previous && !options.resume) {
    throw new CliError(
      `An earlier import of ${options.file} stopped after row ${previous.row} (${checkpointFile}). Pass --resume to continue it, or delete the checkpoint file to start over.`,
    );
  }
  if (previous && previous.file_size !== size) {
    throw new CliError(
      `${options.file} changed since the checkpoint was written (${previous.file_size} bytes then, ${size} now); row numbers no longer match. Delete ${checkpointFile} to import it from the start (existing addresses are skipped).`,
    );
  }
  if (options.resume && !previous) {
    writeLine(io.stderr, `No checkpoint for ${options.file}: importing from the first row.`);
  }
  const startAfter = previous?.row ?? 0;
  const report = ErrorReport.open(`${file}.errors.csv`, previous ? startAfter : undefined);
  // Ids in blocks: one counter write per block instead of one per row. A block is a few
  // times the concurrency, so ids still follow the file order closely.
  const store = services.store();
  const ids = new IdBlocks(
    (count) => store.reserveIds('subscriber', count),
    Math.max(16, options.concurrency * 4),
  );
  const context: ImportContext = {
    store,
    settings,
    now: () => new Date(),
    nextId: () => ids.next(),
  };

  const counts = { imported: 0, exists: 0, rejected: 0, skipped: 0 };
  const watermark = new Watermark(startAfter);
  const inFlight = new Set<Promise<void>>();
  /** The newest row in flight of each address. */
  const lastOfAddress = new Map<string, Promise<void>>();
  let failure: { error: unknown } | undefined;
  let sinceCheckpoint = 0;
  let started = 0;
  let remaining = false;
  let bytes = 0;

  const progress = startProgress(
    io.stderr,
    'Importing {bar} {percentage}% | {rows} rows: {imported} new, {exists} existing, {rejected} rejected | ETA {eta_formatted}',
    size,
    { rows: 0, ...counts },
  );
  const done = (row: number, outcome: Outcome, email: string, code?: string, message?: string) => {
    counts[outcome] += 1;
    if (code !== undefined) report.add(row, email, code, message ?? '');
    sinceCheckpoint += 1;
    if (sinceCheckpoint >= options.checkpointEvery) {
      sinceCheckpoint = 0;
      writeCheckpoint(checkpointFile, watermark.row, size);
    }
    progress.update(bytes, {
      rows: counts.imported + counts.exists + counts.rejected,
      ...counts,
    });
  };

  const delimiter = sourceDelimiter(options.source, await readHeaderLine(file));
  const input = createReadStream(file);
  const parser = parse({
    bom: true,
    delimiter,
    info: true,
    // A short or long row is reported as that row's error instead of ending the run.
    relax_column_count: true,
    skip_empty_lines: true,
  });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);

  let header: SourceMapping | undefined;
  let headerRow = 1;
  try {
    for await (const { record, line: row, bytes: read } of numberedRecords(parser)) {
      bytes = read;
      if (!header) {
        try {
          header = sourceMapping(options.source, record, settings, {
            defaultStatus: options.status,
            ...(options.lists ? { lists: options.lists } : {}),
          });
        } catch (error) {
          if (error instanceof SubscriberCsvError) throw new CliError(error.message);
          throw error;
        }
        headerRow = row;
        if (options.source !== 'newsletter') {
          // Another service's columns: say what each becomes before the first row is written.
          const used = header.columns.filter(({ field }) => !field.startsWith('not imported'));
          writeLine(
            io.stderr,
            `Reading ${options.file} as ${options.source}: ${used.map(({ column, field }) => `${column} → ${field}`).join(', ')}; status: ${header.statusRule}.`,
          );
        }
        if (header.ignored.length > 0) {
          writeLine(io.stderr, `Ignoring columns: ${header.ignored.join(', ')}`);
        }
        watermark.pass(Math.max(row, startAfter));
        continue;
      }
      if (row <= startAfter) {
        counts.skipped += 1;
        continue;
      }
      if (failure) break;
      if (options.limit !== undefined && started >= options.limit) {
        remaining = true;
        break;
      }
      started += 1;
      const problem = header.lengthProblem(record);
      if (problem !== undefined) {
        watermark.pass(row);
        done(row, 'rejected', record[header.email] ?? '', 'invalid_row', problem);
        continue;
      }
      const { email, parameters, status, refused } = header.row(record);
      if (refused !== undefined) {
        watermark.pass(row);
        done(row, 'rejected', email, 'invalid_parameter', refused);
        continue;
      }
      watermark.start(row);
      // Rows of one address run in file order, so the first of them is the one imported and
      // the later ones are reported as existing, whatever the concurrency.
      const address = email.trim().toLowerCase();
      const before = lastOfAddress.get(address) ?? Promise.resolve();
      const task = before
        .then(() => importSubscriber(context, parameters, status))
        .then(
          (outcome) => {
            watermark.finish(row);
            if (outcome.kind === 'created') done(row, 'imported', email);
            else if (outcome.kind === 'exists')
              done(row, 'exists', email, 'email_exists', outcome.error.message);
            else done(row, 'rejected', email, outcome.error.code, outcome.error.message);
          },
          (error: unknown) => {
            // The row stays in flight: the checkpoint must not pass it.
            failure ??= { error };
          },
        );
      const tracked = task.finally(() => {
        inFlight.delete(tracked);
        if (lastOfAddress.get(address) === tracked) lastOfAddress.delete(address);
      });
      lastOfAddress.set(address, tracked);
      inFlight.add(tracked);
      if (inFlight.size >= options.concurrency) await Promise.race(inFlight);
    }
  } catch (error) {
    // A CSV syntax error (an unclosed quote) or an unreadable file: nothing later can be trusted.
    failure ??= { error };
  } finally {
    input.destroy();
    await Promise.allSettled(inFlight);
    progress.stop();
  }

  if (failure && isCsvError(failure.error)) {
    // The file itself is broken (an unclosed quote): resuming would stop at the same place,
    // and fixing the file changes it, so no checkpoint is left. The parser drops the records
    // of the chunk it failed in, so only some rows before the error may have been imported.
    report.close();
    if (!previous) removeCheckpoint(checkpointFile);
    throw new CliError(
      `${options.file} is not valid CSV: ${failure.error.message}. Fix it and import it again: rows imported before the error are then reported as existing, not duplicated.`,
    );
  }
  if (!header) {
    // Nothing was imported: an unusable header is the file's problem, not a stopped run.
    report.close();
    if (failure) throw failure.error;
    throw new CliError(`${options.file} is empty: the first row must be the header.`);
  }
  if (failure) {
    const row = watermark.row;
    report.close();
    // Nothing done past the header (say, the table does not exist): no checkpoint to resume.
    if (row <= headerRow && !previous) throw new ImportStopped(failure.error, undefined);
    writeCheckpoint(checkpointFile, row, size);
    throw new ImportStopped(failure.error, row);
  }
  if (remaining) writeCheckpoint(checkpointFile, watermark.row, size);
  else removeCheckpoint(checkpointFile);
  report.close();
  return {
    ...counts,
    remaining,
    ...(report.entries > 0 ? { report: report.path } : {}),
  };
}
