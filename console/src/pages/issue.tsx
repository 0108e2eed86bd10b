/**
 * One issue: its state and what can be done to it now (edit, test, schedule, send; pause,
 * resume, cancel; copy), the live view while it sends, and its report.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { webVersionPath } from '../../../shared/domain/links.ts';
import { recall, remember } from '../issue-cache.ts';
import { useSession } from '../session/session.tsx';
import type { Issue, Newsletter, Report } from '../types.ts';
import { Busy, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { useLoad } from '../ui/use-load.ts';
import { Schedule, Send, TestSend, useAction } from './issue-actions.tsx';
import { ReportView } from './issue-report.tsx';
import { when } from './issues.tsx';

/** How often a sending issue is read again, and a scheduled one (to see it start). */
const LIVE_EVERY_MS = 2000;
const SCHEDULED_EVERY_MS = 15_000;

/** Sent over the last samples, as a rate per second and the time the rest would take. */
function pace(samples: readonly { at: number; done: number }[], left: number) {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || last.at === first.at) return undefined;
  const rate = (last.done - first.done) / ((last.at - first.at) / 1000);
  return { rate, seconds: rate > 0 ? left / rate : undefined };
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  if (seconds < 3600) return `${Math.ceil(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.ceil((seconds % 3600) / 60)} min`;
}

function LiveView(props: { issue: Newsletter; report: Report | undefined }) {
  const samples = useRef<{ at: number; done: number }[]>([]);
  const counts = props.report?.counts;
  const total = props.issue.total ?? 0;
  const sent = props.issue.sent ?? 0;
  const skipped = counts?.skipped ?? 0;
  const failed = counts?.failed ?? 0;
  const done = sent + skipped + failed;
  samples.current = [...samples.current, { at: Date.now(), done }].slice(-15);
  const now = pace(samples.current, Math.max(0, total - done));
  return (
    <section aria-labelledby="live-heading">
      <h2 id="live-heading">Sending</h2>
      <progress aria-label="Sent so far" value={done} max={Math.max(total, 1)} />
      <dl class="figures" aria-live="polite">
        <div>
          <dt>Sent</dt>
          <dd data-live="sent">{sent}</dd>
        </div>
        <div>
          <dt>Skipped</dt>
          <dd>{skipped}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd>{failed}</dd>
        </div>
        <div>
          <dt>Of</dt>
          <dd>{total}</dd>
        </div>
        <div>
          <dt>Rate</dt>
          <dd>{now ? `${now.rate.toFixed(1)} per second` : 'measuring…'}</dd>
        </div>
        <div>
          <dt>Time left</dt>
          <dd>{now?.seconds === undefined ? '–' : duration(now.seconds)}</dd>
        </div>
      </dl>
    </section>
  );
}

export function IssuePage(props: { id: string }) {
  const { api, config } = useSession();
  const { route } = useLocation();
  const id = Number(props.id);
  const [round, setRound] = useState(0);
  const issue = useLoad(
    () => api.call<Newsletter>(`/newsletters/${id}`).then((a) => a.body),
    [id, round],
  );
  const status = issue.data?.status;
  const report = useLoad(
    () =>
      status && status !== 'draft'
        ? api.call<Report>(`/issues/${id}/report`).then((a) => a.body)
        : Promise.resolve(undefined),
    [id, round, status],
  );
  const live = status === 'sending' || status === 'scheduled';
  useEffect(() => {
    if (!live) return;
    const every = status === 'scheduled' ? SCHEDULED_EVERY_MS : LIVE_EVERY_MS;
    const timer = setTimeout(() => setRound((n) => n + 1), every);
    return () => clearTimeout(timer);
  }, [live, round, issue.data, status]);
  const control = useAction();
  const refresh = () => setRound((n) => n + 1);

  async function act(path: string, method: 'POST' | 'DELETE' = 'POST') {
    await control.run(async () => {
      const answer = await api.call<Issue>(`/issues/${id}${path}`, { method });
      remember(answer.body);
      refresh();
    });
  }

  const data = issue.data;
  if (!data) {
    return (
      <Page title={`Issue ${id}`}>
        {issue.loading && <Busy label="Loading the issue…" />}
        <Problem error={issue.error} />
      </Page>
    );
  }
  const cached = recall(id);
  const webVersion =
    cached?.url ??
    data.url ??
    (data.private || status !== 'sent'
      ? undefined
      : `${config.apiBase.replace(/\/v2$/, '/v1')}${webVersionPath(id)}`);
  return (
    <Page title={data.subject || `Issue ${id}`}>
      <p>
        Status:{' '}
        <strong class={`status status-${status}`} data-status={status}>
          {status}
        </strong>
        {data.private ? ' · private' : ''}
        {status === 'scheduled' && (cached?.scheduled_at ?? data.scheduled_at)
          ? ` · starts ${when((cached?.scheduled_at ?? data.scheduled_at) as string)}`
          : ''}
        {data.sent_on ? ` · finished ${when(data.sent_on)}` : ''}
      </p>
      <Problem error={issue.error} />
      <ul class="actions">
        {status === 'draft' && (
          <li>
            <a class="button" href={`/issues/${id}/edit`}>
              Edit
            </a>
          </li>
        )}
        {status === 'scheduled' && (
          <li>
            <button type="button" onClick={() => void act('/schedule', 'DELETE')}>
              Unschedule (back to draft)
            </button>
          </li>
        )}
        {status === 'sending' && (
          <li>
            <button type="button" onClick={() => void act('/pause')}>
              Pause
            </button>
          </li>
        )}
        {status === 'paused' && (
          <li>
            <button type="button" onClick={() => void act('/resume')}>
              Resume
            </button>
          </li>
        )}
        {(status === 'scheduled' || status === 'sending' || status === 'paused') && (
          <li>
            <button type="button" class="danger" onClick={() => void act('/cancel')}>
              Cancel the send
            </button>
          </li>
        )}
        <li>
          <button
            type="button"
            class="secondary"
            onClick={() =>
              void control.run(async () => {
                const copy = remember(
                  (await api.call<Issue>(`/issues/${id}/copy`, { method: 'POST' })).body,
                );
                route(`/issues/${copy.id}/edit`);
              })
            }
          >
            Copy into a new draft
          </button>
        </li>
        {webVersion && (
          <li>
            <a class="button secondary" href={webVersion} target="_blank" rel="noopener">
              Web version
            </a>
          </li>
        )}
      </ul>
      {control.busy && <Busy label="Working…" />}
      <Problem error={control.error} />
      {status === 'draft' && (
        <>
          <TestSend id={id} />
          <Schedule id={id} changed={refresh} />
          <Send id={id} changed={refresh} resend={false} />
        </>
      )}
      {(status === 'sending' || status === 'paused') && (
        <LiveView issue={data} report={report.data} />
      )}
      {status === 'sent' && <Send id={id} changed={refresh} resend={true} />}
      {report.data && status !== 'sending' && (
        <ReportView report={report.data} reload={report.reload} loading={report.loading} />
      )}
      <Problem error={report.error} />
    </Page>
  );
}
