/** What can be done to an issue before it goes: test it, schedule it, send it. */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { remember } from '../issue-cache.ts';
import { useSession } from '../session/session.tsx';
import type { Issue } from '../types.ts';
import { Busy, Confirm, Done, Problem } from '../ui/feedback.tsx';
import { instantOf } from '../zoned-time.ts';

/** Runs one action with its progress and failure shown. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  async function run<T>(action: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (failure) {
      setError(failure);
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, run, setError };
}

/** Sends the issue as a test to up to five addresses. */
export function TestSend(props: { id: number }) {
  const { api, person } = useSession();
  const [to, setTo] = useState(person?.email ?? '');
  const [sent, setSent] = useState<readonly string[] | undefined>(undefined);
  const action = useAction();
  return (
    <section aria-labelledby="test-heading">
      <h2 id="test-heading">Test send</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setSent(undefined);
          void action.run(async () => {
            const addresses = to.split(/[\s,;]+/).filter(Boolean);
            const answer = await api.call<{ to: string[] }>(`/issues/${props.id}/test`, {
              method: 'POST',
              body: { to: addresses },
            });
            setSent(answer.body.to);
          });
        }}
      >
        <label for="test-to">Addresses (at most 5, separated by commas)</label>
        <input id="test-to" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        <button type="submit" disabled={action.busy}>
          Send test
        </button>
      </form>
      {action.busy && <Busy label="Sending the test…" />}
      <Problem error={action.error} />
      {sent && <Done>Test sent to {sent.join(', ')}. It arrives within a minute.</Done>}
    </section>
  );
}

/** Starts the send at a date, time and zone. */
export function Schedule(props: { id: number; changed: (issue: Issue) => void }) {
  const { api } = useSession();
  const here = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zones: readonly string[] =
    typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [here];
  const [zone, setZone] = useState(here);
  const action = useAction();
  return (
    <section aria-labelledby="schedule-heading">
      <h2 id="schedule-heading">Schedule</h2>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value;
          void action.run(async () => {
            const at = instantOf(value('date'), value('time'), zone).toISOString();
            const answer = await api.call<Issue>(`/issues/${props.id}/schedule`, {
              method: 'POST',
              body: { at },
            });
            props.changed(remember(answer.body));
          });
        }}
      >
        <div>
          <label for="schedule-date">Date</label>
          <input id="schedule-date" name="date" type="date" required />
        </div>
        <div>
          <label for="schedule-time">Time</label>
          <input id="schedule-time" name="time" type="time" required />
        </div>
        <div>
          <label for="schedule-zone">Time zone</label>
          <select id="schedule-zone" value={zone} onChange={(e) => setZone(e.currentTarget.value)}>
            {(zones.includes(here) ? zones : [here, ...zones]).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={action.busy}>
          Schedule
        </button>
      </form>
      {action.busy && <Busy label="Scheduling…" />}
      <Problem error={action.error} />
    </section>
  );
}

/** `GET /issues/{id}/audience`: as `send` would decide it now. */
interface Audience {
  readonly recipients?: number;
  readonly quota?: {
    readonly max_24_hour_send: number;
    readonly sent_last_24_hours: number;
    readonly room: number;
  };
  readonly fits?: boolean;
  /** The sentence a send that does not fit is refused with; null when it fits. */
  readonly warning?: string | null;
}

/** Sends the issue: first how many it reaches and whether that fits SES's daily quota. */
export function Send(props: { id: number; changed: () => void; resend: boolean }) {
  const { api } = useSession();
  const [audience, setAudience] = useState<Audience | undefined>(undefined);
  // A sent issue goes again only to those it has not reached (subscribers who came since).
  const newOnly = props.resend;
  const [overQuota, setOverQuota] = useState<string | undefined>(undefined);
  const prepare = useAction();
  const send = useAction();
  const count = audience?.recipients;
  const warning = overQuota ?? (audience?.warning || undefined);

  async function go(acceptQuota: boolean) {
    await send.run(async () => {
      try {
        await api.call<Issue>(`/issues/${props.id}/send`, {
          method: 'POST',
          body: {
            ...(newOnly ? { new_only: true } : {}),
            ...(acceptQuota ? { accept_quota: true } : {}),
          },
        });
        props.changed();
      } catch (failure) {
        if (failure instanceof ApiError && failure.code === 'over_quota') {
          setOverQuota(failure.message);
          return;
        }
        throw failure;
      }
    });
  }

  return (
    <section aria-labelledby="send-heading">
      <h2 id="send-heading">{props.resend ? 'Send to new subscribers' : 'Send'}</h2>
      {!audience && (
        <p>
          <button
            type="button"
            disabled={prepare.busy}
            onClick={() =>
              void prepare.run(async () => {
                setOverQuota(undefined);
                try {
                  const query = newOnly ? '?new_only=true' : '';
                  setAudience(
                    (await api.call<Audience>(`/issues/${props.id}/audience${query}`)).body,
                  );
                } catch (failure) {
                  // An API without the count still sends; the send itself checks the quota.
                  if (
                    failure instanceof ApiError &&
                    failure.status === 404 &&
                    failure.code !== 'not_found'
                  )
                    setAudience({});
                  else throw failure;
                }
              })
            }
          >
            Prepare to send
          </button>
        </p>
      )}
      {prepare.busy && <Busy label="Counting the recipients…" />}
      <Problem error={prepare.error} />
      {audience && (
        <Confirm label="Confirm the send">
          <p data-recipients={count}>
            {count === undefined
              ? 'The number of recipients could not be counted.'
              : `This issue goes to ${count} subscriber${count === 1 ? '' : 's'} now.`}
          </p>
          {audience.quota && (
            <p>
              Daily SES quota: {audience.quota.sent_last_24_hours.toLocaleString()} of{' '}
              {audience.quota.max_24_hour_send.toLocaleString()} sent in the last 24 hours, room for{' '}
              {audience.quota.room.toLocaleString()}.
            </p>
          )}
          {warning && (
            <p class="warning" role="alert">
              {warning}
            </p>
          )}
          <button type="button" disabled={send.busy} onClick={() => void go(Boolean(warning))}>
            {warning
              ? 'Send anyway, over the quota'
              : `Send to ${count ?? 'the'} subscriber${count === 1 ? '' : 's'}`}
          </button>{' '}
          <button type="button" class="secondary" onClick={() => setAudience(undefined)}>
            Not now
          </button>
        </Confirm>
      )}
      {send.busy && <Busy label="Starting the send…" />}
      <Problem error={send.error} />
    </section>
  );
}
