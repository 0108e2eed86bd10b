/** An issue's report: counts, opens and clicks over time, top links, the CSV. */
import { useState } from 'preact/hooks';
import { readCsvParts } from '../api.ts';
import { useSession } from '../session/session.tsx';
import type { Report } from '../types.ts';
import { download } from '../ui/download.ts';
import { Busy, Done, Problem } from '../ui/feedback.tsx';
import { HourChart } from '../ui/hour-chart.tsx';
import { ScrollBox } from '../ui/scroll-box.tsx';
import { useAction } from './issue-actions.tsx';

const COUNTS: readonly [keyof Report['counts'], string][] = [
  ['recipients', 'Recipients'],
  ['sent', 'Sent'],
  ['skipped', 'Skipped'],
  ['failed', 'Failed'],
  ['unsent', 'Not sent yet'],
  ['unsubscribed', 'Unsubscribed through it'],
  ['bounced', 'Bounced'],
  ['complained', 'Complained'],
];

/** Every CSV part, following `Link: rel="next"`, as one file. */
function CsvDownload(props: { id: number }) {
  const { api } = useSession();
  const [rows, setRows] = useState<number | undefined>(undefined);
  const [done, setDone] = useState(false);
  const action = useAction();
  return (
    <p>
      <button
        type="button"
        disabled={action.busy}
        onClick={() =>
          void action.run(async () => {
            setDone(false);
            setRows(0);
            const text = await readCsvParts(api, `/issues/${props.id}/report`, setRows);
            download(`newsletter-${props.id}-report.csv`, text);
            setDone(true);
          })
        }
      >
        Download the recipients as CSV
      </button>
      {action.busy && <Busy label={`Downloading the CSV: ${rows ?? 0} rows so far…`} />}
      {done && <Done>The CSV is downloaded ({rows} lines).</Done>}
      <Problem error={action.error} />
    </p>
  );
}

export function ReportView(props: { report: Report; reload: () => void; loading: boolean }) {
  const { report } = props;
  const { person } = useSession();
  const engagement = report.engagement;
  return (
    <section aria-labelledby="report-heading">
      <h2 id="report-heading">Report</h2>
      <p>
        <button type="button" class="secondary" onClick={props.reload} disabled={props.loading}>
          Reload the report
        </button>
      </p>
      {props.loading && <Busy label="Reading the report…" />}
      <dl class="figures">
        {COUNTS.map(([key, label]) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd data-count={key}>{String(report.counts[key])}</dd>
          </div>
        ))}
        {engagement && (
          <>
            <div>
              <dt>Opened</dt>
              <dd data-count="opened">
                {engagement.opened} ({engagement.opened_rate}%)
              </dd>
            </div>
            <div>
              <dt>Clicked</dt>
              <dd data-count="clicked">
                {engagement.clicked} ({engagement.clicked_rate}%)
              </dd>
            </div>
          </>
        )}
      </dl>
      {engagement && (
        <>
          <p class="hint">{engagement.note}</p>
          <h3>Opens and clicks over time</h3>
          <HourChart hours={engagement.hours ?? []} />
          <h3>Top links</h3>
          {engagement.links.length === 0 ? (
            <p>No link clicked yet.</p>
          ) : (
            <ScrollBox label="Top links">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Link</th>
                    <th scope="col">Clicks</th>
                  </tr>
                </thead>
                <tbody>
                  {engagement.links.map((link) => (
                    <tr key={link.url}>
                      <td class="url">{link.url}</td>
                      <td>{link.clicks}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          )}
        </>
      )}
      {person?.role === 'admin' ? (
        <CsvDownload id={report.newsletter_id} />
      ) : (
        // The rows name every recipient: the API gives them to admins only ([report.editor]).
        <p class="hint" data-recipients="admins">
          Who got it, one row per recipient, is for admins: ask one for the recipients as CSV.
        </p>
      )}
    </section>
  );
}
