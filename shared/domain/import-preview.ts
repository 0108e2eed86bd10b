import { isNewsletterError } from './errors.ts';
import type { ColumnUse, SourceMapping } from './import-mapping.ts';
import type { ImportSource } from './import-sources.ts';
import { parseAddSubscriberParameters } from './parameters/parse-parameters.ts';
import type { Settings } from './settings-schema.ts';
import type { SubscriberStatus } from './subscriber.ts';

/** A row the import would refuse, as the preview lists it. */
export interface PreviewRefusal {
  readonly line: number;
  readonly email: string;
  readonly reason: string;
}

/** What an import would write, reported before anything is ([import.preview]). */
export interface ImportPreview {
  readonly source: ImportSource;
  readonly columns: readonly ColumnUse[];
  readonly status_rule: string;
  /** Data rows read. */
  readonly rows: number;
  /** Rows the import would write, by the status they would get. */
  readonly statuses: Readonly<Partial<Record<SubscriberStatus, number>>>;
  /** Rows the import would refuse. */
  readonly refused: number;
  /** The first PREVIEW_REFUSALS of them, by line. */
  readonly refusals: readonly PreviewRefusal[];
  /** Attribute keys (listmonk) that name no profile field, not imported. */
  readonly attributes_not_imported: readonly string[];
}

/** Refusals a preview lists (it counts them all). */
export const PREVIEW_REFUSALS = 100;

/**
 * Counts what an import of the rows would write, writing and reading nothing: each row mapped
 * and checked with the rules of `add_subscriber`. An address already subscribed is counted as
 * the row says, since the preview does not read the table (the import leaves it alone).
 */
export class PreviewCounter {
  readonly #statuses: Partial<Record<SubscriberStatus, number>> = {};
  readonly #refusals: PreviewRefusal[] = [];
  readonly #dropped = new Set<string>();
  #rows = 0;
  #refused = 0;

  constructor(
    private readonly mapping: SourceMapping,
    private readonly settings: Settings,
  ) {}

  add(line: number, record: readonly string[]): void {
    this.#rows += 1;
    const short = this.mapping.lengthProblem(record);
    if (short !== undefined) {
      this.#refuse(line, record[this.mapping.email] ?? '', short);
      return;
    }
    const row = this.mapping.row(record);
    for (const key of row.droppedAttributes ?? []) this.#dropped.add(key);
    if (row.refused !== undefined) {
      this.#refuse(line, row.email, row.refused);
      return;
    }
    const parsed = parseAddSubscriberParameters(
      { ...row.parameters, status: row.status === 'S' ? 'S' : 'C' },
      this.settings,
    );
    if (isNewsletterError(parsed)) {
      this.#refuse(line, row.email, parsed.message);
      return;
    }
    this.#statuses[row.status] = (this.#statuses[row.status] ?? 0) + 1;
  }

  result(): ImportPreview {
    return {
      source: this.mapping.source,
      columns: this.mapping.columns,
      status_rule: this.mapping.statusRule,
      rows: this.#rows,
      statuses: { ...this.#statuses },
      refused: this.#refused,
      refusals: [...this.#refusals],
      attributes_not_imported: [...this.#dropped].sort(),
    };
  }

  #refuse(line: number, email: string, reason: string): void {
    this.#refused += 1;
    if (this.#refusals.length < PREVIEW_REFUSALS) this.#refusals.push({ line, email, reason });
  }
}
