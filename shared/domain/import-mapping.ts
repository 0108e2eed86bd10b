import {
  type ImportSource,
  type MappedField,
  type MappedStatus,
  SOURCE_FORMATS,
  type SourceFormat,
} from './import-sources.ts';
import type { Settings } from './settings-schema.ts';
import { unescapeCell } from './spreadsheet-cells.ts';
import type { SubscriberStatus } from './subscriber.ts';
import { importColumns, importRow, SubscriberCsvError } from './subscriber-csv.ts';

/**
 * Applies a source's format (import-sources.ts) to a file's header and rows
 * ([import.sources]): what each column becomes, each row as `add_subscriber` parameters with
 * its status; import-preview.ts reports all of it before anything is written ([import.preview]).
 */

/** What one column of the file becomes, in file order: the preview's table. */
export interface ColumnUse {
  readonly column: string;
  /** Our field (`email`, `profile_city`, `lists`, `status`...), or `not imported: why`. */
  readonly field: string;
}

/** One row as the import writes it. */
export interface MappedRow {
  readonly email: string;
  readonly parameters: Record<string, unknown>;
  /** Our status letter, the default applied. */
  readonly status: SubscriberStatus;
  /** Why the row cannot be imported as the source wrote it (an unknown status, say). */
  readonly refused?: string;
  /** Attribute keys (listmonk) that name no profile field: not imported. */
  readonly droppedAttributes?: readonly string[];
}

/** A file's header read as one source's export. */
export interface SourceMapping {
  readonly source: ImportSource;
  readonly columns: readonly ColumnUse[];
  /** Columns not imported, by name. */
  readonly ignored: readonly string[];
  /** How each row's status is found, in words. */
  readonly statusRule: string;
  /** The email column. */
  readonly email: number;
  /** Why a record of this many cells is not a row of the file; undefined when it is one. */
  lengthProblem(record: readonly string[]): string | undefined;
  row(record: readonly string[]): MappedRow;
}

/** What the operator decides for the whole file. */
export interface MappingOptions {
  /** The status of the people a source mails without naming their state (`active`). */
  readonly defaultStatus: 'S' | 'C';
  /** Lists for rows whose file names none; absent: such rows join no list, as today. */
  readonly lists?: readonly number[];
}

/**
 * Reads a file's header as `source`'s export.
 *
 * @throws SubscriberCsvError when the header has no email column, names a column twice, or
 *   (ours) has a `profile_<id>` column for no profile field: no row could be imported as meant.
 */
export function sourceMapping(
  source: ImportSource,
  header: readonly string[],
  settings: Settings,
  options: MappingOptions,
): SourceMapping {
  return source === 'newsletter'
    ? ownMapping(header, settings, options)
    : foreignMapping(source, SOURCE_FORMATS[source], header, settings, options);
}

/**
 * The delimiter of a file of `source`: of the ones the source writes, the one the header line
 * holds most often outside quotes (the original writes `;` unless told `,` or tab).
 */
export function sourceDelimiter(source: ImportSource, headerLine: string): string {
  const candidates = source === 'newsletter' ? [','] : SOURCE_FORMATS[source].delimiters;
  const counts = new Map<string, number>();
  let quoted = false;
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && candidates.includes(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best = candidates[0] ?? ',';
  for (const candidate of candidates)
    if ((counts.get(candidate) ?? 0) > (counts.get(best) ?? 0)) best = candidate;
  return best;
}

/**
 * The list ids an operator gives for rows that name none (`--lists`, v2 `lists=`): ids
 * separated by commas, spaces or `;`. Undefined when one is not an id.
 */
export function listIdsOf(text: string): number[] | undefined {
  const ids = text.split(/[\s,;]+/).filter((id) => id !== '');
  return ids.every((id) => /^[1-9]\d{0,9}$/.test(id)) ? ids.map(Number) : undefined;
}

function lengthCheck(count: number, trailing: boolean) {
  return (record: readonly string[]): string | undefined =>
    record.length === count || (trailing && record.length === count + 1 && record[count] === '')
      ? undefined
      : `the row has ${record.length} fields; the header has ${count}`;
}

function withLists(parameters: Record<string, unknown>, options: MappingOptions): void {
  if (parameters.lists === undefined && options.lists && options.lists.length > 0)
    parameters.lists = [...options.lists];
}

/** Our own export, as subscriber-csv.ts reads it. */
function ownMapping(
  header: readonly string[],
  settings: Settings,
  options: MappingOptions,
): SourceMapping {
  const columns = importColumns(header, settings);
  const used = new Map<number, string>([[columns.email, 'email']]);
  for (const name of ['name', 'surname', 'gender', 'lists', 'status'] as const) {
    const index = columns[name];
    if (index !== undefined) used.set(index, name);
  }
  for (const [id, index] of columns.profile) used.set(index, `profile_${id}`);
  return {
    source: 'newsletter',
    columns: header.map((column, index) => ({
      column,
      field: used.get(index) ?? 'not imported: informational or unknown',
    })),
    ignored: columns.ignored,
    statusRule: `the status column (S, C, U, B, P); rows without one: ${options.defaultStatus}`,
    email: columns.email,
    lengthProblem: lengthCheck(columns.count, false),
    row(record) {
      const { email, parameters, status } = importRow(record, columns);
      withLists(parameters, options);
      const letter = (status || options.defaultStatus).toUpperCase();
      const known = (['S', 'C', 'U', 'B', 'P'] as const).find((each) => each === letter);
      return known
        ? { email, parameters, status: known }
        : {
            email,
            parameters,
            status: 'U',
            // The message importSubscriber gave before sources existed.
            refused: 'status must be one of S, C, U, B, P',
          };
    },
  };
}

const NUMBERED = /^(profile|list) (\d+)$/;

/** Another service's export, as its format in import-sources.ts says. */
function foreignMapping(
  source: Exclude<ImportSource, 'newsletter'>,
  format: SourceFormat,
  header: readonly string[],
  settings: Settings,
  options: MappingOptions,
): SourceMapping {
  const fixed = new Map<MappedField, number>();
  const profile = new Map<string, number>();
  const lists = new Map<number, number>();
  const columns: ColumnUse[] = [];
  const ignored: string[] = [];
  const seen = new Set<string>();
  let statusIndex: number | undefined;
  let attributesIndex: number | undefined;
  let fileStatus: { column: string; status: MappedStatus } | undefined;
  const fieldIds = new Set(settings.profile_fields.map((field) => field.id));
  const listIds = new Set(settings.lists.map((list) => list.id));
  const skip = (column: string, why: string) => {
    ignored.push(column);
    columns.push({ column, field: `not imported: ${why}` });
  };
  header.forEach((raw, index) => {
    const column = raw.trim();
    const lower = column.toLowerCase();
    if (seen.has(lower)) throw new SubscriberCsvError(`The header names column ${column} twice.`);
    seen.add(lower);
    const field = Object.hasOwn(format.columns, lower) ? format.columns[lower] : undefined;
    const numbered = format.numbered ? NUMBERED.exec(lower) : null;
    if (field) {
      fixed.set(field, index);
      columns.push({ column, field });
    } else if (lower === format.statusColumn) {
      statusIndex = index;
      columns.push({ column, field: 'status' });
    } else if (format.fileStatus && Object.hasOwn(format.fileStatus, lower)) {
      const status = format.fileStatus[lower] as MappedStatus;
      fileStatus ??= { column, status };
      columns.push({ column, field: `status: every row ${status}` });
    } else if (lower === format.attributesColumn) {
      attributesIndex = index;
      columns.push({ column, field: 'profile fields named by its keys' });
    } else if (numbered?.[1] === 'profile') {
      const id = numbered[2] as string;
      if (fieldIds.has(id)) {
        profile.set(id, index);
        columns.push({ column, field: `profile_${id}` });
      } else skip(column, `no profile field ${id} in the settings`);
    } else if (numbered?.[1] === 'list') {
      const id = Number(numbered[2]);
      if (listIds.has(id)) {
        lists.set(id, index);
        columns.push({ column, field: `lists (list ${id} when 1)` });
      } else skip(column, `no list ${id} in the settings`);
    } else if (fieldIds.has(column)) {
      // A column named exactly as a profile field (a Mailchimp merge field, say).
      profile.set(column, index);
      columns.push({ column, field: `profile_${column}` });
    } else skip(column, `not a field of ${format.title}'s export we store`);
  });
  const emailColumn = Object.keys(format.columns).find((name) => format.columns[name] === 'email');
  const email = fixed.get('email');
  if (email === undefined)
    throw new SubscriberCsvError(
      `The file has no ${emailColumn ?? 'email'} column, so it is not ${format.title}'s export (the first row must be its header).`,
    );
  const statusRule = fileStatus
    ? `every row ${applied(fileStatus.status, options)}: the file has ${fileStatus.column}`
    : statusIndex !== undefined
      ? `the ${header[statusIndex]?.trim()} column: ${Object.entries(format.statuses ?? {})
          .map(
            ([value, status]) =>
              `${value === '' ? '(empty)' : value} → ${applied(status, options)}`,
          )
          .join(', ')}; any other value refuses the row`
      : `every row ${options.defaultStatus}: the file has no status column`;
  return {
    source,
    columns,
    ignored,
    statusRule,
    email,
    lengthProblem: lengthCheck(header.length, format.trailingDelimiter === true),
    row(record) {
      const cell = (index: number | undefined): string =>
        index === undefined ? '' : unescapeCell(record[index] ?? '');
      const address = cell(email).trim();
      const parameters: Record<string, unknown> = { email: address };
      for (const name of ['name', 'surname'] as const) {
        const value = cell(fixed.get(name)).trim();
        if (value !== '') parameters[name] = value;
      }
      const gender = cell(fixed.get('gender')).trim().toLowerCase();
      if (gender !== '') parameters.gender = gender;
      const values: Record<string, string> = {};
      for (const [id, index] of profile) {
        const value = cell(index);
        if (value !== '') values[id] = value;
      }
      const attributes = readAttributes(cell(attributesIndex), fieldIds);
      Object.assign(values, attributes.values);
      if (Object.keys(values).length > 0) parameters.profile = values;
      // The original writes 1 for a list the subscriber is on, 0 for one they are not.
      const on = [...lists].filter(([, index]) => cell(index).trim() === '1').map(([id]) => id);
      if (on.length > 0) parameters.lists = on;
      withLists(parameters, options);
      const dropped =
        attributes.dropped.length > 0 ? { droppedAttributes: attributes.dropped } : {};
      let mapped: MappedStatus | undefined = fileStatus?.status ?? 'active';
      let refused = attributes.refused;
      if (!fileStatus && statusIndex !== undefined) {
        const value = cell(statusIndex).trim();
        const statuses = format.statuses ?? {};
        const key = value.toLowerCase();
        mapped = Object.hasOwn(statuses, key) ? statuses[key] : undefined;
        if (mapped === undefined)
          refused ??= `${format.title} status ${JSON.stringify(value)} is not one of ${Object.keys(
            statuses,
          )
            .filter((each) => each !== '')
            .join(', ')}`;
      }
      // An unknown status never falls through to the default: the row is refused, and the
      // status it carries meanwhile blocks mail.
      const status = mapped === undefined ? 'U' : applied(mapped, options);
      return {
        email: address,
        parameters,
        status,
        ...(refused !== undefined ? { refused } : {}),
        ...dropped,
      };
    },
  };
}

function applied(status: MappedStatus, options: MappingOptions): SubscriberStatus {
  return status === 'active' ? options.defaultStatus : status;
}

/** listmonk's `attributes`: a JSON object; keys that are profile field ids are imported. */
function readAttributes(
  text: string,
  fieldIds: ReadonlySet<string>,
): { values: Record<string, string>; dropped: string[]; refused?: string } {
  if (text.trim() === '') return { values: {}, dropped: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { values: {}, dropped: [], refused: 'attributes is not a JSON object' };
  const values: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    if (fieldIds.has(key) && ['string', 'number', 'boolean'].includes(typeof value))
      values[key] = String(value);
    else dropped.push(key);
  }
  return { values, dropped };
}
