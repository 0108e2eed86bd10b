/**
 * A subscriber import from the console: what it writes besides the parts it posts.
 */
// The browser build: the Node one reads Buffer, which browsers lack.
import { stringify } from 'csv-stringify/browser/esm/sync';
import { SAFE_CELLS } from '../../shared/domain/spreadsheet-cells.ts';

/** A row the API did not import, with its line in the file and why. */
export interface RowNotImported {
  readonly line: number;
  readonly row: string;
  /** `email_exists` for an address already subscribed (left as it is). */
  readonly code: string;
  readonly reason: string;
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
