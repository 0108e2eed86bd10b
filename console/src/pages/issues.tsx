/** The issues, newest first: status, how many were sent, opens and clicks. */
import { useLocation } from 'preact-iso/router';
import { useSession } from '../session/session.tsx';
import { type Newsletter, type Report, totalsOf } from '../types.ts';
import { Busy, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { Pager, pageOf } from '../ui/pager.tsx';
import { ScrollBox } from '../ui/scroll-box.tsx';
import { useLoad } from '../ui/use-load.ts';

const PER_PAGE = 20;

/** Opens and clicks of one issue, from its report (only issues that sent something have any). */
function Engagement(props: { issue: Newsletter }) {
  const { api } = useSession();
  const reached = (props.issue.sent ?? 0) > 0;
  const report = useLoad(
    () =>
      reached
        ? api.call<Report>(`/issues/${props.issue.id}/report`).then((a) => a.body)
        : Promise.resolve(undefined),
    [props.issue.id, reached],
  );
  const engagement = report.data?.engagement;
  // Nothing sent, or a report without opens and clicks (tracking off): nothing to show.
  if (!reached || (!report.loading && !report.error && !engagement))
    return (
      <>
        <td>–</td>
        <td>–</td>
      </>
    );
  if (report.error) return <td colSpan={2}>not available</td>;
  if (report.loading || !engagement)
    return (
      <>
        <td>…</td>
        <td>…</td>
      </>
    );
  return (
    <>
      <td>
        {engagement.opened} ({engagement.opened_rate}%)
      </td>
      <td>
        {engagement.clicked} ({engagement.clicked_rate}%)
      </td>
    </>
  );
}

/** Dates as the reader's locale writes them. */
export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '';
}

export function IssuesPage() {
  const { api } = useSession();
  const { query } = useLocation();
  const page = pageOf(query);
  const issues = useLoad(
    () => api.call<Newsletter[]>(`/newsletters?per_page=${PER_PAGE}&page=${page}`),
    [page],
  );
  const totals = issues.data ? totalsOf(issues.data.headers) : undefined;
  return (
    <Page title="Issues">
      <p>
        <a class="button" href="/issues/new">
          Write a new issue
        </a>
      </p>
      {issues.loading && !issues.data && <Busy label="Loading the issues…" />}
      <Problem error={issues.error} />
      {issues.data && issues.data.body.length === 0 && <p>No issue yet: write the first one.</p>}
      {issues.data && issues.data.body.length > 0 && (
        <ScrollBox label="Issues table">
          <table>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Status</th>
                <th scope="col">Sent</th>
                <th scope="col">Opened</th>
                <th scope="col">Clicked</th>
                <th scope="col">Finished</th>
              </tr>
            </thead>
            <tbody>
              {issues.data.body.map((issue) => (
                <tr key={issue.id}>
                  <td>
                    <a href={`/issues/${issue.id}`}>{issue.subject || `Issue ${issue.id}`}</a>
                  </td>
                  <td>
                    <span class={`status status-${issue.status}`}>{issue.status}</span>
                    {issue.private ? ' (private)' : ''}
                  </td>
                  <td>
                    {issue.sent ?? 0} of {issue.total ?? 0}
                  </td>
                  <Engagement issue={issue} />
                  <td>{when(issue.sent_on)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {totals && totals.pages > 1 && (
        <Pager
          page={page}
          pages={totals.pages}
          total={totals.total}
          href={(n) => `/issues?page=${n}`}
        />
      )}
    </Page>
  );
}
