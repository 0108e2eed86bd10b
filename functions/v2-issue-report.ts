import { stringify } from 'csv-stringify/sync';
import Negotiator from 'negotiator';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { campaignReport, type ReportRow } from '../shared/operations/campaign/campaign-report.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf } from '../shared/operations/v2/v2-issues.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { v2Handler } from './http/v2-handler.ts';

const { runtime, keyCheck, campaignDeps: deps } = v2CampaignFunction({ queue: false });

/** The CSV columns, as `newsletters report --csv` writes them. */
const COLUMNS = ['email', 'subscriber_id', 'outcome', 'at', 'message_id'];

/**
 * v2 `GET /issues/{id}/report` (ours): the report `newsletters report` makes, as JSON, or
 * with `Accept: text/csv` one row per recipient. The CSV is built whole in the function
 * (API Gateway's Lambda proxy does not stream): up to Lambda's 6 MB answer, about 60,000
 * recipients; larger reports come from the CLI ([v2.issues]).
 */
export const handler = v2Handler('v2-issue-report', runtime, keyCheck, {
  GET: async (params, _caller, request) => {
    const id = issueIdOf(params.id);
    if (isNewsletterError(id)) return id;
    const csv =
      new Negotiator({ headers: { accept: request.accept ?? '' } }).mediaType([
        'application/json',
        'text/csv',
      ]) === 'text/csv';
    const rows: ReportRow[] = [];
    const report = await runOperation(deps, 'report_newsletter', () =>
      campaignReport(deps, id, csv ? (page) => void rows.push(...page) : undefined),
    );
    if (isNewsletterError(report)) return report;
    if (!csv) return { body: report };
    return {
      body: undefined,
      text: stringify(rows, { header: true, columns: COLUMNS }),
      headers: {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="newsletter-${id}-report.csv"`,
      },
    };
  },
});
