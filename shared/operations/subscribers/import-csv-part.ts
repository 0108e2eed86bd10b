import { parse } from 'csv-parse/sync';
import { inParallel } from '../../adapters/store/dynamo-batches.ts';
import type { DynamoStore } from '../../adapters/store/dynamo-store.ts';
import { IdBlocks } from '../../adapters/store/id-blocks.ts';
import type { Store } from '../../adapters/store/store-port.ts';
import {
  DependencyError,
  describeError,
  type NewsletterError,
  newsletterError,
} from '../../domain/errors.ts';
import {
  listIdsOf,
  type SourceMapping,
  sourceDelimiter,
  sourceMapping,
} from '../../domain/import-mapping.ts';
import { type ImportPreview, PreviewCounter } from '../../domain/import-preview.ts';
import { IMPORT_SOURCES, type ImportSource, isImportSource } from '../../domain/import-sources.ts';
import type { Settings } from '../../domain/settings-schema.ts';
import { SubscriberCsvError } from '../../domain/subscriber-csv.ts';
import type { Dependencies } from '../dependencies.ts';
import { importSubscriber } from './import-subscriber.ts';

/** The most data rows a part may hold (its header row not counted). */
export const IMPORT_PART_ROWS = 1_000;

/** Rows of different addresses written at once. */
const CONCURRENCY = 8;

/** A row of the part that was not imported, and why (the CLI's error report, as JSON). */
export interface RejectedRow {
  /** Its line in the part (the header is line 1). */
  readonly line: number;
  /** The row as the part gave it, its cells joined by commas. */
  readonly row: string;
  readonly email: string;
  /** `email_exists` for an address already subscribed (left alone), else why it was refused. */
  readonly code: string;
  readonly reason: string;
}

/** How a part is read: whose export it is, and what the operator decides for every row. */
export interface ImportPartOptions {
  readonly source: ImportSource;
  /** Status of the rows the source gives no state of (import-mapping.ts). */
  readonly defaultStatus: 'S' | 'C';
  /** Lists for rows that name none. */
  readonly lists?: readonly number[];
  /** Report what the part would write, writing nothing ([import.preview]). */
  readonly preview?: boolean;
}

/**
 * The query of `POST /subscribers/import` as ImportPartOptions: `status` (S or C, default C),
 * `source` (default ours), `preview` (true or false), `lists` (ids, comma-separated).
 */
export function importPartOptions(
  params: Readonly<Record<string, unknown>>,
): ImportPartOptions | NewsletterError {
  const text = (name: string, fallback: string): string => {
    const value = params[name];
    return typeof value === 'string' ? value : fallback;
  };
  const status = text('status', 'C');
  if (status !== 'S' && status !== 'C')
    return newsletterError('invalid_parameter', 'status must be S or C');
  const source = text('source', 'newsletter');
  if (!isImportSource(source))
    return newsletterError(
      'invalid_parameter',
      `source must be one of ${IMPORT_SOURCES.join(', ')}`,
    );
  const preview = text('preview', 'false');
  if (preview !== 'true' && preview !== 'false')
    return newsletterError('invalid_parameter', 'preview must be true or false');
  const lists = listIdsOf(text('lists', ''));
  if (!lists)
    return newsletterError('invalid_parameter', 'lists must be list ids separated by commas');
  return {
    source,
    defaultStatus: status,
    preview: preview === 'true',
    ...(lists.length > 0 ? { lists } : {}),
  };
}

/** What importing a part did. */
export interface ImportPartResult {
  readonly imported: number;
  /** Always 0: an import never changes an existing subscriber, as the CLI's does not. */
  readonly updated: 0;
  /** Rows whose address was already a subscriber's: left alone, listed in `rejected`. */
  readonly existing: number;
  readonly rejected: RejectedRow[];
}

/**
 * What a part wrote before a dependency failed ([v2.subscribers-import-stop]): the counts and
 * rejected rows of the rows it finished, and the lines it did not finish (the row in hand when
 * DynamoDB failed may or may not be in: posted again, it then counts as existing).
 */
export interface StoppedPart {
  readonly imported: number;
  readonly existing: number;
  readonly rejected: RejectedRow[];
  /** Lines of the part (the header is line 1) not finished: post these rows again. */
  readonly unprocessed: number[];
}

/** What a part's import needs. */
export interface ImportPartDependencies {
  readonly store: Store & Pick<DynamoStore, 'reserveIds'>;
  readonly settings: () => Promise<Settings>;
  readonly now: () => Date;
  readonly log: Dependencies['log'];
}

/**
 * Imports one part of a subscriber CSV ([v2.subscribers-import]): the same file format, header
 * and row rules as `npx newsletter subscribers import` (shared/domain/subscriber-csv.ts), each
 * row through the same `importSubscriber` (the rules of `add_subscriber`, an existing address
 * left alone, the consent evidence `import`). A part carries its own header row and at most
 * IMPORT_PART_ROWS rows, so a file is posted part by part; rows of one address are taken in
 * order (the first is imported, the later ones exist), rows of different addresses
 * CONCURRENCY at a time. A header no row could be imported under, broken CSV, or too many rows
 * is a 400 and nothing is written. When DynamoDB fails under way, no lane takes another row,
 * the rows under way finish, and the answer is a 503 whose `data.import` says what was
 * written and which lines were not (StoppedPart).
 */
export async function importCsvPart(
  deps: ImportPartDependencies,
  text: string,
  options: ImportPartOptions,
): Promise<ImportPartResult | { preview: ImportPreview } | NewsletterError> {
  let records: { record: string[]; info: { lines: number; empty_lines: number } }[];
  const headerEnd = text.indexOf('\n');
  const firstLine = headerEnd === -1 ? text : text.slice(0, headerEnd);
  try {
    records = parse(text, {
      bom: true,
      delimiter: sourceDelimiter(options.source, firstLine),
      info: true,
      // A short or long row is that row's error, as in the CLI.
      relax_column_count: true,
      skip_empty_lines: true,
      // csv-parse's sync typings ignore `info: true`, which wraps each record with its lines.
    }) as unknown as { record: string[]; info: { lines: number; empty_lines: number } }[];
  } catch (error) {
    return newsletterError(
      'invalid_parameter',
      `The CSV cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // Where each record starts, as the CLI numbers rows: after the previous record's last line
  // and any blank lines between.
  let lastLine = 0;
  let lastEmpty = 0;
  const numbered = records.map(({ record, info }) => {
    const line = lastLine + 1 + (info.empty_lines - lastEmpty);
    lastLine = info.lines;
    lastEmpty = info.empty_lines;
    return { record, line };
  });
  const [first, ...rows] = numbered;
  if (!first)
    return newsletterError('missing_parameter', 'The CSV part is empty: it needs a header row.');
  if (rows.length > IMPORT_PART_ROWS)
    return newsletterError(
      'body_too_large',
      `A part holds at most ${IMPORT_PART_ROWS.toLocaleString('en-US')} rows after its header; this one has ${rows.length.toLocaleString('en-US')}. Post the file in smaller parts, each with the header row.`,
    );
  const settings = await deps.settings();
  let header: SourceMapping;
  try {
    header = sourceMapping(options.source, first.record, settings, {
      defaultStatus: options.defaultStatus,
      ...(options.lists ? { lists: options.lists } : {}),
    });
  } catch (error) {
    if (error instanceof SubscriberCsvError)
      return newsletterError('invalid_parameter', error.message);
    throw error;
  }
  if (options.preview) {
    const counter = new PreviewCounter(header, settings);
    for (const { line, record } of rows) counter.add(line, record);
    return { preview: counter.result() };
  }
  const ids = new IdBlocks(
    (count) => deps.store.reserveIds('subscriber', count),
    Math.min(Math.max(rows.length, 1), 64),
  );
  const context = { store: deps.store, settings, now: deps.now, nextId: () => ids.next() };
  const counts = { imported: 0, existing: 0 };
  const rejected: RejectedRow[] = [];
  /** Lines with an outcome: imported, existing or rejected. */
  const finished = new Set<number>();
  const refuse = (
    line: number,
    record: readonly string[],
    email: string,
    code: string,
    reason: string,
  ) => {
    rejected.push({ line, row: record.join(','), email, code, reason });
    finished.add(line);
  };
  // Rows of one address in file order, the addresses side by side.
  const byAddress = new Map<string, { line: number; record: string[] }[]>();
  for (const { record, line } of rows) {
    const problem = header.lengthProblem(record);
    if (problem !== undefined) {
      refuse(line, record, record[header.email] ?? '', 'invalid_row', problem);
      continue;
    }
    const address = header.row(record).email.toLowerCase();
    byAddress.set(address, [...(byAddress.get(address) ?? []), { line, record }]);
  }
  try {
    await inParallel([...byAddress.values()], CONCURRENCY, async (group) => {
      for (const { line, record } of group) {
        const { email, parameters, status, refused } = header.row(record);
        if (refused !== undefined) {
          refuse(line, record, email, 'invalid_parameter', refused);
          continue;
        }
        const outcome = await importSubscriber(context, parameters, status);
        if (outcome.kind === 'created') {
          counts.imported += 1;
          finished.add(line);
        } else {
          if (outcome.kind === 'exists') counts.existing += 1;
          refuse(line, record, email, outcome.error.code, outcome.error.message);
        }
      }
    });
  } catch (error) {
    if (!(error instanceof DependencyError)) throw error;
    deps.log.error('dependency_unavailable', {
      operation: 'import_subscribers',
      dependency: error.dependency,
      cause: describeError(error),
    });
    rejected.sort((a, b) => a.line - b.line);
    return stopped({
      ...counts,
      rejected,
      unprocessed: rows.map(({ line }) => line).filter((line) => !finished.has(line)),
    });
  }
  rejected.sort((a, b) => a.line - b.line);
  return { imported: counts.imported, updated: 0, existing: counts.existing, rejected };
}

/** The 503 of a part DynamoDB failed under, saying what it wrote and what it did not. */
function stopped(part: StoppedPart): NewsletterError {
  return newsletterError(
    'unavailable',
    `The service became unavailable during this part: ${part.imported} rows were imported ` +
      `and ${part.unprocessed.length} were not; post those rows again (data.import.unprocessed ` +
      'names their lines). Addresses already in are left as they are, so nothing is doubled.',
    { import: part },
  );
}
