/**
 * An issue's report as CSV over HTTP, in parts ([v2.report-csv]): each part reads at most its
 * pages of recipient records, one page at a time, and names where the next part starts; the
 * parts concatenate into the one file the CLI writes. What is asserted is the reads, page by
 * page, not time: a part never holds more than one page of records besides its own text.
 */
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import type {
  CampaignStore,
  RecordSpace,
} from '../../../shared/adapters/store/campaign-store-port.ts';
import type { CampaignRecord } from '../../../shared/domain/campaign/campaign.ts';
import type { RecipientRecord } from '../../../shared/domain/campaign/recipient.ts';
import { isNewsletterError, type NewsletterError } from '../../../shared/domain/errors.ts';
import {
  type CsvPart,
  type CsvPartLimits,
  REPORT_CSV_COLUMNS,
  v2ReportCsvPart,
} from '../../../shared/operations/v2/v2-report-csv.ts';

const ISSUE = 7;
const AT = '2026-12-01T09:00:00.000Z';

/** What the store was asked: each page read (after, limit) and each address lookup's size. */
interface Reads {
  pages: { after: number; limit: number; returned: number }[];
  lookups: number[];
}

/**
 * A store of `count` recipient records with ids 2, 5, 8, ... (not dense), every third one's
 * subscriber deleted since (no address); paging as DynamoDB's Query with a Limit does it.
 */
function storeOf(count: number): {
  campaigns: Pick<CampaignStore, 'getCampaign' | 'recipientPage' | 'emailsOf'>;
  reads: Reads;
  records: RecipientRecord[];
} {
  const records = Array.from(
    { length: count },
    (_, index): RecipientRecord => ({
      newsletter_id: ISSUE,
      subscriber_id: 2 + index * 3,
      state: index % 4 === 0 ? 'skipped' : 'sent',
      ...(index % 4 === 0 ? { reason: 'unsubscribed' as const } : {}),
      run: 1,
      attempts: 1,
      at: AT,
      message_id: `msg-${index}`,
    }),
  );
  const reads: Reads = { pages: [], lookups: [] };
  const campaigns = {
    getCampaign: async (id: number) =>
      id === ISSUE
        ? ({ id: ISSUE, status: 'sent', legacy_records: false } as CampaignRecord)
        : undefined,
    recipientPage: async (space: RecordSpace, after: number, limit: number) => {
      const from = records.filter(
        (each) => each.newsletter_id === space.newsletterId && each.subscriber_id > after,
      );
      const recipients = from.slice(0, limit);
      reads.pages.push({ after, limit, returned: recipients.length });
      return { recipients, more: from.length >= limit };
    },
    emailsOf: async (ids: readonly number[]) => {
      reads.lookups.push(ids.length);
      return new Map(
        ids.filter((id) => id % 9 !== 8).map((id) => [id, `reader-${id}@example.com`] as const),
      );
    },
  };
  return { campaigns, reads, records };
}

/** Every part, following `next` as a client follows the Link header. */
async function allParts(
  campaigns: Pick<CampaignStore, 'getCampaign' | 'recipientPage' | 'emailsOf'>,
  limits?: CsvPartLimits,
): Promise<CsvPart[]> {
  const parts: CsvPart[] = [];
  let after: string | undefined;
  for (;;) {
    const part = await v2ReportCsvPart({ campaigns }, ISSUE, after, limits);
    if (isNewsletterError(part)) throw new Error(part.message);
    parts.push(part);
    if (part.next === undefined) return parts;
    after = String(part.next);
  }
}

/** The whole file, as the CLI writes it in one go. */
function wholeFile(records: readonly RecipientRecord[]): string {
  return stringify(
    records.map((record) => ({
      email: record.subscriber_id % 9 === 8 ? '' : `reader-${record.subscriber_id}@example.com`,
      subscriber_id: record.subscriber_id,
      outcome: record.state === 'skipped' ? 'skipped: unsubscribed' : 'sent',
      at: AT,
      message_id: record.message_id,
    })),
    { header: true, columns: REPORT_CSV_COLUMNS },
  );
}

describe('[v2.report-csv] a report of many rows, in parts', () => {
  it('[v2.report-csv] reads at most 5 pages of 1,000 records per part, one address lookup per page, and the parts concatenate into the whole file', async () => {
    // Arrange: 12,345 recipients, 13 pages.
    const { campaigns, reads, records } = storeOf(12_345);
    // Act
    const parts = await allParts(campaigns);
    // Assert: three parts (5 + 5 + 3 pages), each starting where the one before ended.
    expect(parts.map((part) => part.text.split('\n').length - 1)).toEqual([5_001, 5_000, 2_345]);
    expect(parts.map((part) => [part.after, part.header, part.next])).toEqual([
      [0, true, records[4_999]?.subscriber_id],
      [records[4_999]?.subscriber_id, false, records[9_999]?.subscriber_id],
      [records[9_999]?.subscriber_id, false, undefined],
    ]);
    expect(reads.pages.map((page) => page.limit)).toEqual(Array(13).fill(1_000));
    expect(reads.pages.map((page) => page.returned)).toEqual([...Array(12).fill(1_000), 345]);
    expect(reads.lookups).toEqual([...Array(12).fill(1_000), 345]);
    expect(parts.map((part) => part.text).join('')).toBe(wholeFile(records));
    expect(parts[0]?.text.split('\n')[0]).toBe('email,subscriber_id,outcome,at,message_id');
  });

  it('[v2.report-csv] ends a part before a page that would take it past its bytes; the next part reads that page again', async () => {
    const { campaigns, reads, records } = storeOf(2_500);
    // A page of 1,000 rows is some 61 KB here, the last one of 500 some 30 KB: 80 KB holds
    // one page, never one and a half.
    const parts = await allParts(campaigns, { pages: 5, bytes: 80_000 });
    expect(parts.map((part) => part.text.split('\n').length - 1)).toEqual([1_001, 1_000, 500]);
    expect(reads.pages.map((page) => page.after)).toEqual([
      0,
      records[999]?.subscriber_id,
      records[999]?.subscriber_id,
      records[1_999]?.subscriber_id,
      records[1_999]?.subscriber_id,
    ]);
    expect(parts.map((part) => part.text).join('')).toBe(wholeFile(records));
  });

  it('[v2.report-csv] takes the first page of a part whatever its size, so every part moves on', async () => {
    const { campaigns } = storeOf(1_500);
    const parts = await allParts(campaigns, { pages: 5, bytes: 10 });
    expect(parts.map((part) => part.text.split('\n').length - 1)).toEqual([1_001, 500]);
  });

  it('[v2.report-csv] an issue without recipients is the header alone; a bad after is a 400, an unknown issue a 404', async () => {
    const { campaigns } = storeOf(0);
    expect(await allParts(campaigns)).toEqual([
      { after: 0, header: true, text: 'email,subscriber_id,outcome,at,message_id\n' },
    ]);
    for (const after of ['abc', '-1', '1.5', '1'.repeat(16), ['1']]) {
      const refused = (await v2ReportCsvPart({ campaigns }, ISSUE, after)) as NewsletterError;
      expect(refused).toMatchObject({ code: 'invalid_parameter', status: 400 });
    }
    expect(await v2ReportCsvPart({ campaigns }, 8, undefined)).toMatchObject({
      code: 'not_found',
      status: 404,
    });
  });
});
