import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { SAFE_CELLS, unescapeCell } from '../../shared/domain/spreadsheet-cells.ts';

const HEADER = ['row', 'email', 'code', 'message'];

/**
 * The per-row report of an import, `<file>.errors.csv`: `row,email,code,message`, one line for
 * each row not imported (rejected, or the address already existed). Lines are appended with
 * synchronous writes as rows finish, so by the time a checkpoint names a row, the report lines
 * of every row up to it are in the file.
 */
export class ErrorReport {
  #fd: number;
  #entries: number;

  private constructor(
    readonly path: string,
    fd: number,
    entries: number,
  ) {
    this.#fd = fd;
    this.#entries = entries;
  }

  /**
   * Opens the report. A fresh import starts it empty; a resumed one keeps the lines of rows up
   * to the checkpoint and drops later ones, which the resumed run processes (and reports) again.
   */
  static open(path: string, keepUpToRow: number | undefined): ErrorReport {
    let kept: string[][] = [];
    if (keepUpToRow !== undefined && existsSync(path)) {
      // A crash may have cut the last line short: skip what does not parse.
      const rows = parse(readFileSync(path), {
        bom: true,
        relax_column_count: true,
        relax_quotes: true,
        skip_empty_lines: true,
        skip_records_with_error: true,
      }) as string[][];
      // Read back as written: escaped cells are unescaped, so writing them again is exact.
      kept = rows
        .slice(1)
        .filter((row) => Number(row[0]) <= keepUpToRow && row.length === 4)
        .map((row) => row.map(unescapeCell));
    }
    const fd = openSync(path, 'w', 0o600);
    writeSync(fd, stringify([HEADER, ...kept], SAFE_CELLS));
    return new ErrorReport(path, fd, kept.length);
  }

  /** Lines in the report, kept ones included. */
  get entries(): number {
    return this.#entries;
  }

  /** Appends one line. */
  add(row: number, email: string, code: string, message: string): void {
    // The cells come from the input file (the message quotes it): formulas neutralised.
    writeSync(this.#fd, stringify([[row, email, code, message]], SAFE_CELLS));
    this.#entries += 1;
  }

  /** Closes the file; an empty report is removed, so its absence means "every row imported". */
  close(): void {
    closeSync(this.#fd);
    if (this.#entries === 0) rmSync(this.path, { force: true });
  }
}
