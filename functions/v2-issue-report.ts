import { isNewsletterError } from '../shared/domain/errors.ts';
import { campaignReport } from '../shared/operations/campaign/campaign-report.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { issueIdOf } from '../shared/operations/v2/v2-issues.ts';
import { v2ReportCsvPart } from '../shared/operations/v2/v2-report-csv.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { engagementStore } from '../shared/runtime/store.ts';
import { v2CampaignFunction } from './http/v2-campaign-function.ts';
import { csvPartAnswer, wantsCsv } from './http/v2-csv-answer.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-issue-report.ts';

const { runtime, keyCheck, campaignDeps: deps } = v2CampaignFunction();
const engagement = engagementStore(readEnvironment());

/**
 * v2 `GET /issues/{id}/report` (ours): the report `newsletters report` makes, opens and
 * clicks included, as JSON, or
 * with `Accept: text/csv` one row per recipient, in parts ([v2.report-csv]): each answer reads
 * at most 5 pages of recipient records, turning each into CSV as it comes, and a
 * `Link: <…?after=ID>; rel="next"` header names the next part while rows remain. The parts
 * concatenate into the file `newsletters report --csv` writes.
 */
export const handler = v2Handler(
  route,
  runtime,
  keyCheck,
  {
    GET: async (params, caller, request) => {
      const id = issueIdOf(params.id);
      if (isNewsletterError(id)) return id;
      if (!wantsCsv(request)) {
        // Opens and clicks as `newsletters report` gives them ([engagement.report]).
        const report = await runOperation(deps, 'report_newsletter', async () =>
          campaignReport(
            {
              campaigns: deps.campaigns,
              engagement: {
                store: engagement,
                tracking: (await deps.settings()).campaign.tracking,
              },
            },
            id,
          ),
        );
        return isNewsletterError(report) ? report : { body: report };
      }
      const part = await runOperation(deps, 'report_newsletter', () =>
        v2ReportCsvPart(deps, id, params.after),
      );
      if (isNewsletterError(part)) return part;
      return csvPartAnswer(part, caller, `/issues/${id}/report`, `newsletter-${id}-report`);
    },
  },
  { wantsCsv },
);
