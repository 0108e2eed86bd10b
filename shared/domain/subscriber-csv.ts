import type { Settings } from './settings-schema.ts';
import { unescapeCell } from './spreadsheet-cells.ts';
import type { Subscriber } from './subscriber.ts';

/**
 * The subscriber CSV that `subscribers export` writes and `subscribers import` reads:
 *
 *   id,email,name,surname,gender,lists,status,created,updated,profile_<id>...
 *
 * - one `profile_<id>` column per profile field in the settings, in settings order;
 * - `lists`: list ids separated by spaces (import also accepts `;` and `,`);
 * - `status`: S, C, U, B or P;
 * - `id`, `created`, `updated` are informational: an import assigns new ids and timestamps,
 *   because ids must grow with creation time;
 * - a cell that a spreadsheet would run as a formula is written with a leading `'` by the
 *   writer's SAFE_CELLS (spreadsheet-cells.ts), and the import removes it again, so the round
 *   trip is exact.
 */

/** A header no row of the file could be imported under; the message says why. */
export class SubscriberCsvError extends Error {
  override readonly name = 'SubscriberCsvError';
}

/** The fixed columns, in order. */
export const BASE_COLUMNS = [
  'id',
  'email',
  'name',
  'surname',
  'gender',
  'lists',
  'status',
  'created',
  'updated',
] as const;

/** Columns the import reads but does not store (see the module comment). */
const INFORMATIONAL = new Set(['id', 'created', 'updated']);

const PROFILE_PREFIX = 'profile_';

/** The export's header for these settings. */
export function exportColumns(settings: Settings): string[] {
  return [...BASE_COLUMNS, ...settings.profile_fields.map((field) => PROFILE_PREFIX + field.id)];
}

/** One subscriber as a CSV row of `exportColumns`, as written before SAFE_CELLS escapes it. */
export function subscriberRow(subscriber: Subscriber, settings: Settings): string[] {
  return [
    String(subscriber.id),
    subscriber.email,
    subscriber.name,
    subscriber.surname,
    subscriber.gender,
    subscriber.lists.join(' '),
    subscriber.status,
    subscriber.created,
    subscriber.updated,
    ...settings.profile_fields.map((field) => subscriber.profile[field.id] ?? ''),
  ];
}

/** Where each stored field is in an import file's rows. */
export interface ImportColumns {
  readonly count: number;
  readonly email: number;
  readonly name?: number;
  readonly surname?: number;
  readonly gender?: number;
  readonly lists?: number;
  readonly status?: number;
  /** Profile field id → column. */
  readonly profile: ReadonlyMap<string, number>;
  /** Columns that are neither ours nor informational; ignored, reported once. */
  readonly ignored: readonly string[];
}

/**
 * Maps an import file's header. Fixed column names match in any case; profile field ids match
 * exactly (they are case-sensitive in the settings).
 *
 * @throws SubscriberCsvError when `email` is missing, a column repeats, or a `profile_<id>` column
 * names no profile field: those would fail every row, or silently drop data.
 */
export function importColumns(header: readonly string[], settings: Settings): ImportColumns {
  const fixed = new Map<string, number>();
  const profile = new Map<string, number>();
  const ignored: string[] = [];
  const unknownProfile: string[] = [];
  const seen = new Set<string>();
  header.forEach((raw, index) => {
    const name = raw.trim();
    const lower = name.toLowerCase();
    if (seen.has(lower)) throw new SubscriberCsvError(`The header names column ${name} twice.`);
    seen.add(lower);
    if (lower.startsWith(PROFILE_PREFIX)) {
      const id = name.slice(PROFILE_PREFIX.length);
      if (settings.profile_fields.some((field) => field.id === id)) profile.set(id, index);
      else unknownProfile.push(name);
    } else if ((BASE_COLUMNS as readonly string[]).includes(lower)) {
      if (!INFORMATIONAL.has(lower)) fixed.set(lower, index);
    } else {
      ignored.push(name);
    }
  });
  if (unknownProfile.length > 0) {
    throw new SubscriberCsvError(
      `The file has profile columns that are not profile fields in the settings: ${unknownProfile.join(', ')}. Add the fields to the settings first, or remove the columns.`,
    );
  }
  const email = fixed.get('email');
  if (email === undefined) {
    throw new SubscriberCsvError(
      'The file has no email column (the first row must be the header).',
    );
  }
  const at = (name: string) => {
    const index = fixed.get(name);
    return index === undefined ? {} : { [name]: index };
  };
  return {
    count: header.length,
    email,
    ...at('name'),
    ...at('surname'),
    ...at('gender'),
    ...at('lists'),
    ...at('status'),
    profile,
    ignored,
  };
}

/** One row as `add_subscriber` parameters, plus its status cell (empty when absent). */
export interface ImportRow {
  readonly email: string;
  readonly parameters: Record<string, unknown>;
  readonly status: string;
}

/**
 * Turns a row into parameters. Empty cells are left out rather than passed as empty strings,
 * so an empty profile cell stores no value, exactly as the export showed it.
 */
export function importRow(record: readonly string[], columns: ImportColumns): ImportRow {
  const cell = (index: number | undefined): string =>
    index === undefined ? '' : unescapeCell(record[index] ?? '');
  const parameters: Record<string, unknown> = { email: cell(columns.email) };
  for (const name of ['name', 'surname', 'gender'] as const) {
    const value = cell(columns[name]);
    if (value !== '') parameters[name] = value;
  }
  const lists = cell(columns.lists)
    .split(/[\s;,]+/)
    .filter((id) => id !== '');
  if (lists.length > 0) parameters.lists = lists;
  const profile: Record<string, string> = {};
  for (const [id, index] of columns.profile) {
    const value = cell(index);
    if (value !== '') profile[id] = value;
  }
  if (Object.keys(profile).length > 0) parameters.profile = profile;
  return { email: cell(columns.email).trim(), parameters, status: cell(columns.status).trim() };
}
