import { stringify } from 'csv-stringify/sync';
import type { DynamoStore } from '../../adapters/store/dynamo-store.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { RawParameters } from '../../domain/parameters/normalise-parameters.ts';
import type { Settings } from '../../domain/settings-schema.ts';
import { SAFE_CELLS } from '../../domain/spreadsheet-cells.ts';
import { toSubscriber } from '../../domain/subscriber.ts';
import { exportColumns, subscriberRow } from '../../domain/subscriber-csv.ts';
import { afterOf, CSV_PART_LIMITS, type CsvPart, type CsvPartLimits } from './v2-report-csv.ts';

/** Subscribers read per Query page: a part reads `limits.pages` of them. */
const PAGE = 1_000;

/**
 * `GET /subscribers` with `Accept: text/csv` (ours, [v2.subscribers-csv]): one part of the file
 * `npx newsletter subscribers export` writes (same columns, rows and escapes, every subscriber
 * oldest first), from `after` on: at most `limits.pages` Query pages of the `recent` index of
 * 1,000 subscribers each, each turned into CSV as it comes, within `limits.bytes`, as a
 * report's CSV is cut ([v2.report-csv]). The filters of the JSON listing do not apply: a
 * filter given is a 400, so nobody takes a part of everyone for a filtered list.
 */
export async function v2SubscribersCsvPart(
  deps: {
    readonly store: Pick<DynamoStore, 'allSubscribers'>;
    readonly settings: () => Promise<Settings>;
  },
  params: RawParameters,
  limits: CsvPartLimits = CSV_PART_LIMITS,
  pageSize = PAGE,
): Promise<CsvPart | NewsletterError> {
  const after = afterOf(params.after);
  if (isNewsletterError(after)) return after;
  for (const filter of ['status', 'list', 'search'])
    if (params[filter] !== undefined && params[filter] !== '')
      return newsletterError(
        'invalid_parameter',
        `${filter} does not apply to the CSV export: it holds every subscriber, as subscribers export writes them`,
      );
  const settings = await deps.settings();
  const columns = exportColumns(settings);
  const header = after === 0;
  const chunks: string[] = header ? [stringify([columns], SAFE_CELLS)] : [];
  let bytes = chunks.reduce((sum, chunk) => sum + escapedBytes(chunk), 0);
  let rows: string[][] = [];
  let pages = 0;
  let last = after;
  let next: number | undefined;
  // Rows are gathered a page at a time: a part ends only between pages, so the next one starts
  // after the last row it holds.
  const flush = (): boolean => {
    const text = stringify(rows, SAFE_CELLS);
    const size = escapedBytes(text);
    const first = chunks.length === (header ? 1 : 0);
    if (!first && bytes + size > limits.bytes) return false;
    chunks.push(text);
    bytes += size;
    rows = [];
    return true;
  };
  let pageLast = after;
  for await (const record of deps.store.allSubscribers({
    order: 'oldest-first',
    pageSize,
    after,
  })) {
    rows.push(subscriberRow(toSubscriber(record), settings));
    pageLast = record.id;
    if (rows.length < pageSize) continue;
    if (!flush()) {
      next = last;
      break;
    }
    last = pageLast;
    pages += 1;
    if (pages >= limits.pages) {
      next = last;
      break;
    }
  }
  if (next === undefined && rows.length > 0) {
    if (flush()) last = pageLast;
    else next = last;
  }
  return { after, text: chunks.join(''), header, ...(next !== undefined ? { next } : {}) };
}

/** The bytes `text` takes in a JSON string, as Lambda's answer carries the body. */
function escapedBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}
