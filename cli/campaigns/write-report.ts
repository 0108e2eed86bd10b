import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { CampaignStore } from '../../shared/adapters/store/campaign-store-port.ts';
import { isNewsletterError, type NewsletterError } from '../../shared/domain/errors.ts';
import { SAFE_CELLS } from '../../shared/domain/spreadsheet-cells.ts';
import {
  type CampaignReport,
  campaignReport,
} from '../../shared/operations/campaign/campaign-report.ts';
import type { CliContext } from '../context.ts';

const COLUMNS = ['email', 'subscriber_id', 'outcome', 'at', 'message_id'];
/** Added in `individual` tracking only ([engagement.modes]). */
const ENGAGEMENT_COLUMNS = ['opened_at', 'clicked_at'];

/** What the report reads opens and clicks with, and the setting that says what rows show. */
export type ReportEngagement = NonNullable<Parameters<typeof campaignReport>[0]['engagement']>;

/**
 * Runs an issue's report and, with `csv`, writes one row per recipient (a file, written to a
 * partial file and renamed when complete, or `-` for standard output).
 */
export async function writeReport(
  campaigns: CampaignStore,
  id: number,
  csv: string | undefined,
  context: Pick<CliContext, 'io'>,
  engagement?: ReportEngagement,
): Promise<CampaignReport | NewsletterError> {
  const deps = { campaigns, ...(engagement ? { engagement } : {}) };
  if (csv === undefined) return campaignReport(deps, id);
  const rows = new PassThrough({ objectMode: true });
  const columns =
    engagement?.tracking === 'individual' ? [...COLUMNS, ...ENGAGEMENT_COLUMNS] : COLUMNS;
  const toCsv = stringify({ ...SAFE_CELLS, header: true, columns });
  const into = async (destination: Writable, end: boolean) => {
    const written = pipeline(rows, toCsv, destination, { end });
    const report = await campaignReport(deps, id, async (page) => {
      for (const row of page)
        if (!rows.write(row)) await new Promise((go) => rows.once('drain', go));
    });
    rows.end();
    await written;
    return report;
  };
  if (csv === '-') return into(context.io.stdout, false);
  const target = resolve(context.io.cwd, csv);
  const partial = `${target}.${randomUUID()}.partial`;
  try {
    const report = await into(createWriteStream(partial, { mode: 0o600 }), true);
    if (isNewsletterError(report)) await rm(partial, { force: true });
    else await rename(partial, target);
    return report;
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
