import type { EngagementReport } from '../../shared/operations/campaign/campaign-report.ts';
import { formatTable } from '../format-table.ts';

/** The report table's engagement rows ([engagement.report]): opened and clicked with rates. */
export function engagementRows(engagement: EngagementReport | undefined): string[][] {
  if (!engagement) return [];
  if (engagement.tracking === 'off' && engagement.opened + engagement.clicks === 0) return [];
  return [
    ['opened (approximate)', `${engagement.opened} (${engagement.opened_rate}% of sent)`],
    ['clicked', `${engagement.clicked} (${engagement.clicked_rate}% of sent)`],
    ['clicks in all', String(engagement.clicks)],
  ];
}

/** The top links and the note on opens, under the table. */
export function engagementLines(engagement: EngagementReport | undefined): string[] {
  if (!engagement) return [];
  if (engagement.tracking === 'off' && engagement.opened + engagement.clicks === 0)
    return ['Opens and clicks are not tracked (campaign.tracking is off).'];
  const links =
    engagement.links.length > 0
      ? [
          'Top links:',
          formatTable(
            ['CLICKS', 'LINK'],
            engagement.links.map((link) => [String(link.clicks), link.url]),
          ),
        ]
      : [];
  return [...links, engagement.note];
}
