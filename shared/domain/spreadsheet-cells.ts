import type { Options } from 'csv-stringify/sync';

/**
 * CSV injection ([csv.formula-cells]): a spreadsheet runs a cell that starts with `=`, `+`,
 * `-` or `@` as a formula (OWASP "CSV Injection"), and a leading tab or carriage return is
 * dropped by some before they look; `|` starts a DDE call in some. Addresses may start with
 * any of `= + - |` and names and profile values with anything, so every CSV this project
 * writes (the service's, the CLI's, the console's) passes its string cells through
 * `escapeCell`, by spreading SAFE_CELLS into csv-stringify's options: one rule, one place.
 */

/** Starts a formula, or is the escape itself (so that `unescapeCell` is exact). */
const NEEDS_ESCAPE = /^['=+\-@\t\r|]/;
const ESCAPED = /^'['=+\-@\t\r|]/;

/**
 * A cell a spreadsheet shows as text: a leading `'` added where a formula could start.
 * Spreadsheets hide that `'`; `unescapeCell` removes it when our import reads the file back.
 */
export function escapeCell(value: string): string {
  return NEEDS_ESCAPE.test(value) ? `'${value}` : value;
}

/** Reverses `escapeCell`; other cells (even ones starting with `'`) pass unchanged. */
export function unescapeCell(value: string): string {
  return ESCAPED.test(value) ? value.slice(1) : value;
}

/**
 * csv-stringify's options that escape every string cell (header names included). Numbers,
 * booleans and dates are ours, never a caller's, and pass as they are.
 */
export const SAFE_CELLS = {
  cast: { string: (value: string) => escapeCell(value) },
} as const satisfies Options;
