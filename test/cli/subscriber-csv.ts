import { writeFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';

/** The columns an import file of these tests has, besides the informational ones. */
export const STORED_COLUMNS = [
  'email',
  'name',
  'surname',
  'gender',
  'lists',
  'status',
  'profile_city',
  'profile_company',
] as const;

const NAMES = [
  'Ada',
  'Zoë',
  'José',
  '=SUM(A1)',
  "'quoted",
  '-dash',
  '',
  'Anne "Nan"',
  'Li, Wei',
  '@handle',
];
const SURNAMES = ["O'Brien", 'van der Berg', 'Smith, Jr.', '', 'Łukasiewicz', '+plus', '"Q"'];
const CITIES = ['London', 'São Paulo', '', '=HYPERLINK("x")', 'New York, NY'];
const COMPANIES = ['', 'ACME, Inc.', 'Globex', '+Plus Corp'];
const GENDERS = ['m', 'f', 'n', ''];
const STATUSES = ['C', 'S', 'U', 'B', 'P', 'C', 'C'];
const LIST_SETS = ['3', '1 3', '2 3', '1 3 4', '1 2 3 4', '3 4'];

/**
 * Row `i` of a generated subscriber file, already in the form an export shows it: lower-case
 * address, pre-assigned list 3 present, ids sorted and space-separated. Varied on purpose:
 * quotes, commas, non-ASCII, cells a spreadsheet would run as formulas, every status.
 */
export function generatedRow(i: number): string[] {
  const pick = <T>(values: readonly T[], salt: number): T =>
    values[(i * 7 + salt) % values.length] as T;
  const email = i % 5 === 0 ? `first.last+tag${i}@sub${i % 3}.example.org` : `user${i}@example.com`;
  return [
    email,
    pick(NAMES, 1),
    pick(SURNAMES, 2),
    pick(GENDERS, 3),
    pick(LIST_SETS, 4),
    pick(STATUSES, 6),
    pick(CITIES, 0),
    pick(COMPANIES, 5),
  ];
}

/** Writes a CSV of `count` generated rows (header included) and returns the rows. */
export async function writeGeneratedCsv(
  path: string,
  count: number,
  first = 0,
): Promise<string[][]> {
  const rows = Array.from({ length: count }, (_, index) => generatedRow(first + index));
  await writeFile(path, stringify([[...STORED_COLUMNS], ...rows]));
  return rows;
}

/** Parses CSV text into records (header first). */
export function parseCsv(text: string): string[][] {
  return parse(text, { bom: true }) as string[][];
}

/** Sorts rows by their email column. */
export function byEmail(rows: string[][], emailColumn = 0): string[][] {
  return [...rows].sort((a, b) => ((a[emailColumn] ?? '') < (b[emailColumn] ?? '') ? -1 : 1));
}
