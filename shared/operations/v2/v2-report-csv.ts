import { stringify } from 'csv-stringify/sync';
import { type CampaignStore, recordSpaceOf } from '../../adapters/store/campaign-store-port.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import { SAFE_CELLS } from '../../domain/spreadsheet-cells.ts';
import { type ReportRow, reportRows } from '../campaign/campaign-report.ts';

/** The CSV columns, as `newsletters report --csv` writes them (without opens and clicks). */
export const REPORT_CSV_COLUMNS = ['email', 'subscriber_id', 'outcome', 'at', 'message_id'];

/** How much one part of a report's CSV holds ([v2.report-csv]). */
export interface CsvPartLimits {
  /** Pages of recipient records (up to 1,000 each) one part reads at most. */
  readonly pages: number;
  /**
   * The most its text may take in the function's answer, as Lambda carries it (JSON-escaped):
   * Lambda answers API Gateway with at most 6 MB (6,291,456 bytes), headers and envelope
   * included.
   */
  readonly bytes: number;
}

/**
 * 5 pages, at most 5,000 rows: about 550 KB of CSV. A page is one Query per partition of the
 * issue's records (8, in parallel) and its addresses: one ranged read when the recipients' ids
 * are close together, one read each when they are scattered among many other subscribers,
 * some 5,000 reads a part, which at 8 in flight take a few seconds of the function's 10. The
 * bytes are a guard for rows far longer than usual.
 */
export const CSV_PART_LIMITS: CsvPartLimits = { pages: 5, bytes: 5_000_000 };

/** One part of a report's CSV: its text, whether it starts with the header, where to go on. */
export interface CsvPart {
  /** The subscriber id it starts after (0: the first part). */
  readonly after: number;
  readonly text: string;
  /** The first part starts with the header row; the others do not, so the parts concatenate. */
  readonly header: boolean;
  /** The subscriber id the next part starts after; absent on the last part. */
  readonly next?: number;
}

/**
 * `after` of a CSV part's query (a report's, the subscribers' export): absent (the first
 * part) or a subscriber id as a Link gave it.
 */
export function afterOf(raw: unknown): number | NewsletterError {
  if (raw === undefined || raw === null || raw === '') return 0;
  if (typeof raw === 'string' && /^\d{1,15}$/.test(raw)) return Number(raw);
  return newsletterError(
    'invalid_parameter',
    'after must be a subscriber id (digits), as the Link header of the previous part gives it',
  );
}

/**
 * `GET /issues/{id}/report` with `Accept: text/csv` (ours, [v2.report-csv]): one part of the
 * report's CSV, from `after` on. Pages of recipient records are read one at a time and each
 * is turned into CSV as it comes (csv-stringify), so the function holds one page of records
 * and the part's text, never the whole report: a part ends after `limits.pages` pages, or
 * before a page whose text would take it past `limits.bytes`, and names the id the next part
 * starts after. Concatenated in order, the parts are the file `newsletters report --csv` writes.
 */
export async function v2ReportCsvPart(
  deps: { readonly campaigns: Pick<CampaignStore, 'getCampaign' | 'recipientPage' | 'emailsOf'> },
  id: number,
  rawAfter: unknown,
  limits: CsvPartLimits = CSV_PART_LIMITS,
): Promise<CsvPart | NewsletterError> {
  const after = afterOf(rawAfter);
  if (isNewsletterError(after)) return after;
  const campaign = await deps.campaigns.getCampaign(id);
  if (!campaign) return newsletterError('not_found', 'Newsletter does not exist');
  const header = after === 0;
  const chunks: string[] = header
    ? [stringify([], { ...SAFE_CELLS, header, columns: REPORT_CSV_COLUMNS })]
    : [];
  let bytes = chunks.reduce((sum, chunk) => sum + escapedBytes(chunk), 0);
  const end = await reportRows(deps.campaigns, recordSpaceOf(campaign), {
    after,
    maxPages: limits.pages,
    onPage: (rows: readonly ReportRow[]) => {
      const text = stringify(rows as ReportRow[], {
        ...SAFE_CELLS,
        header: false,
        columns: REPORT_CSV_COLUMNS,
      });
      const size = escapedBytes(text);
      // The first page is always taken, so every part moves on.
      const first = chunks.length === (header ? 1 : 0);
      if (!first && bytes + size > limits.bytes) return false;
      chunks.push(text);
      bytes += size;
      return true;
    },
  });
  return {
    after,
    text: chunks.join(''),
    header,
    ...(end.next !== undefined ? { next: end.next } : {}),
  };
}

/** The bytes `text` takes in a JSON string, as Lambda's answer carries the body. */
function escapedBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}
