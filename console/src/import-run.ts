/**
 * A subscriber import from the console, part by part, that can stop halfway and say so
 * ([console.import]): what was written, what was not, and the rows a resume sends. The API
 * never changes a subscriber who is already in (`updated` is always 0), so sending a row again
 * is safe: it then counts as already subscribed.
 */
// The browser build: the Node one reads Buffer, which browsers lack.
import { stringify } from 'csv-stringify/browser/esm/sync';
import type { ImportPreview } from '../../shared/domain/import-preview.ts';
import type { ImportSource } from '../../shared/domain/import-sources.ts';
import { SAFE_CELLS } from '../../shared/domain/spreadsheet-cells.ts';
import { type Api, ApiError } from './api.ts';
import { csvRecords } from './csv-parts.ts';

/** Rows a part holds at most: what `POST /subscribers/import` takes. */
export const PART_ROWS = 1000;

/** One record of the file, with the line it starts on (the header is line 1). */
export interface FileRecord {
  readonly record: string;
  readonly line: number;
}

/** A row the API did not import, with its line in the file and why. */
export interface RowNotImported {
  readonly line: number;
  readonly row: string;
  /** `email_exists` for an address already subscribed (left as it is). */
  readonly code: string;
  readonly reason: string;
}

/** The part that failed, and what is known of its rows. */
export interface ImportFailure {
  readonly error: unknown;
  readonly firstLine: number;
  readonly lastLine: number;
  /**
   * `none`: the API refused the part whole, nothing of it is in; `some`: the API stopped under
   * way and said which rows it wrote; `unknown`: no whole answer came (a dropped connection,
   * a failure without detail), so its rows may or may not be in.
   */
  readonly written: 'none' | 'some' | 'unknown';
}

/** Where an import stands; `runImport` moves it on. */
export interface ImportRun {
  /** Whose export the file is ([import.sources]). */
  readonly source: ImportSource;
  readonly header: string;
  /** Rows in the file. */
  readonly rows: number;
  /** Rows not written yet, in file order: what a resume sends. */
  pending: FileRecord[];
  /** Rows per part; halved after a part too large for the server. */
  partRows: number;
  imported: number;
  /** Addresses already subscribed: left as they were. */
  existing: number;
  /** Rows refused or already in, with the reason. */
  notImported: RowNotImported[];
  /** The last failure, until a resume clears it. */
  failure?: ImportFailure;
}

/** What the API answers for a part (and, in a 503's `data.import`, for a stopped one). */
interface PartAnswer {
  readonly imported: number;
  readonly existing?: number;
  readonly rejected: readonly { line: number; row: string; code: string; reason: string }[];
  readonly unprocessed?: readonly number[];
}

/** The import of a CSV text; undefined for a file without a data row. */
export function startImport(
  text: string,
  partRows = PART_ROWS,
  source: ImportSource = 'newsletter',
): ImportRun | undefined {
  const [header, ...records] = csvRecords(text.replace(/^\uFEFF/, ''));
  if (!header || records.length === 0) return undefined;
  return {
    source,
    header: header.record,
    rows: records.length,
    pending: records,
    partRows,
    imported: 0,
    existing: 0,
    notImported: [],
  };
}

/** Rows of the file written (or answered for) so far. */
export function rowsDone(run: ImportRun): number {
  return run.rows - run.pending.length;
}

/** The rows refused for a reason other than being in already. */
export function rejectedRows(run: ImportRun): RowNotImported[] {
  return run.notImported.filter((row) => row.code !== 'email_exists');
}

/** The next part to send: its text, and which file record stands at each of its lines. */
function nextPart(run: ImportRun): {
  text: string;
  records: FileRecord[];
  at: Map<number, FileRecord>;
} {
  const records = run.pending.slice(0, run.partRows);
  const at = new Map<number, FileRecord>();
  // The API numbers a part's lines from its header (line 1) as the file's are numbered.
  let line = 2 + newlines(run.header);
  for (const each of records) {
    at.set(line, each);
    line += 1 + newlines(each.record);
  }
  return {
    text: `${[run.header, ...records.map((each) => each.record)].join('\n')}\n`,
    records,
    at,
  };
}

const newlines = (text: string): number => text.split('\n').length - 1;

/**
 * Sends the pending rows part by part until all are written or one part fails; then
 * `run.failure` says how, and `run.pending` holds what a resume sends (the part again, less the
 * rows the API said it wrote). `changed` is called after each part.
 */
export async function runImport(
  api: Pick<Api, 'call'>,
  run: ImportRun,
  changed: () => void,
): Promise<void> {
  delete run.failure;
  while (run.pending.length > 0) {
    const part = nextPart(run);
    let answer: PartAnswer;
    try {
      answer = (
        await api.call<PartAnswer>(importPath(run.source), {
          method: 'POST',
          body: part.text,
          contentType: 'text/csv',
        })
      ).body;
    } catch (caught) {
      failed(run, part, caught);
      changed();
      return;
    }
    take(run, part.at, answer);
    run.pending = run.pending.slice(part.records.length);
    changed();
  }
}

/** The import route, with the source when it is not ours. */
function importPath(source: ImportSource, preview = false): string {
  const query = new URLSearchParams();
  if (source !== 'newsletter') query.set('source', source);
  if (preview) query.set('preview', 'true');
  const text = query.toString();
  return text === '' ? '/subscribers/import' : `/subscribers/import?${text}`;
}

/**
 * What importing the file would write, written nothing ([import.preview]): every part posted
 * with `preview=true` and the answers added up, refusals at their file lines. Undefined for a
 * file without a data row. @throws ApiError as the API answers (a bad header, say).
 */
export async function previewImport(
  api: Pick<Api, 'call'>,
  text: string,
  source: ImportSource,
  partRows = PART_ROWS,
): Promise<ImportPreview | undefined> {
  const run = startImport(text, partRows, source);
  if (!run) return undefined;
  let total: ImportPreview | undefined;
  while (run.pending.length > 0) {
    const part = nextPart(run);
    const { preview } = (
      await api.call<{ preview: ImportPreview }>(importPath(source, true), {
        method: 'POST',
        body: part.text,
        contentType: 'text/csv',
      })
    ).body;
    const refusals = preview.refusals.map((each) => ({
      ...each,
      line: part.at.get(each.line)?.line ?? each.line,
    }));
    const statuses = { ...total?.statuses };
    for (const [status, count] of Object.entries(preview.statuses) as [
      keyof typeof statuses,
      number,
    ][])
      statuses[status] = (statuses[status] ?? 0) + count;
    total = {
      ...preview,
      rows: (total?.rows ?? 0) + preview.rows,
      statuses,
      refused: (total?.refused ?? 0) + preview.refused,
      refusals: [...(total?.refusals ?? []), ...refusals],
      attributes_not_imported: [
        ...new Set([...(total?.attributes_not_imported ?? []), ...preview.attributes_not_imported]),
      ].sort(),
    };
    run.pending = run.pending.slice(part.records.length);
  }
  return total;
}

/** Adds what the API did with a part's rows to the run. */
function take(run: ImportRun, at: Map<number, FileRecord>, answer: PartAnswer): void {
  run.imported += answer.imported;
  run.existing += answer.existing ?? 0;
  run.notImported.push(
    ...answer.rejected.map((row) => ({
      line: at.get(row.line)?.line ?? row.line,
      row: row.row,
      code: row.code,
      reason: row.reason,
    })),
  );
  run.notImported.sort((a, b) => a.line - b.line);
}

function failed(
  run: ImportRun,
  part: { records: FileRecord[]; at: Map<number, FileRecord> },
  caught: unknown,
): void {
  // A connection that drops while the answer is read fails outside the API client.
  const error =
    caught instanceof ApiError
      ? caught
      : new ApiError(0, 'network', 'The connection dropped before the answer came whole.');
  const span = {
    firstLine: part.records[0]?.line ?? 0,
    lastLine: part.records.at(-1)?.line ?? 0,
  };
  const stopped = (error.body as { data?: { import?: PartAnswer } } | undefined)?.data?.import;
  if (error.status === 503 && stopped?.unprocessed) {
    take(run, part.at, stopped);
    const again = stopped.unprocessed.flatMap((line) => part.at.get(line) ?? []);
    run.pending = [...again, ...run.pending.slice(part.records.length)];
    run.failure = { error, ...span, written: 'some' };
    return;
  }
  if (error.status === 413 || (error.status === 400 && error.code === 'body_too_large')) {
    // Too large for the server or a proxy before it: nothing was written; send less at once.
    run.partRows = Math.max(1, Math.floor(part.records.length / 2));
    run.failure = { error, ...span, written: 'none' };
    return;
  }
  const unknown = error.status === 0 || error.status >= 500;
  run.failure = { error, ...span, written: unknown ? 'unknown' : 'none' };
}

/** The rows not imported as a CSV (`line,reason,row`), formulas neutralised. */
export function notImportedCsv(
  rows: readonly Pick<RowNotImported, 'line' | 'row' | 'reason'>[],
): string {
  return stringify(
    rows.map((row) => [row.line, row.reason, row.row]),
    { ...SAFE_CELLS, header: true, columns: ['line', 'reason', 'row'] },
  );
}

/** Lines as short ranges: `2–1001, 1500, 1600–1700`. */
export function lineRanges(records: readonly FileRecord[]): string {
  // [first line, line the last record starts on, line it ends on]
  const spans: [number, number, number][] = [];
  for (const { record, line } of records) {
    const last = spans.at(-1);
    const end = line + newlines(record);
    if (last && line === last[2] + 1) {
      last[1] = line;
      last[2] = end;
    } else spans.push([line, line, end]);
  }
  return spans.map(([a, b]) => (a === b ? String(a) : `${a}–${b}`)).join(', ');
}
