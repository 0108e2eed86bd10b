/**
 * One subscriber: fields, lists, status, consent evidence, the issues they got; edit lists and
 * fields, unsubscribe, delete (which erases them).
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { nextLink } from '../api.ts';
import { useSession } from '../session/session.tsx';
import type { ExtraField, List, Subscriber } from '../types.ts';
import { Busy, Confirm, Done, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { useLoad } from '../ui/use-load.ts';
import { useAction } from './issue-actions.tsx';
import { when } from './issues.tsx';

interface Received {
  readonly id: number;
  readonly subject: string;
  readonly outcome: string;
  readonly reason?: string;
  readonly at: string;
  readonly opened_at?: string;
  readonly clicked_at?: string;
  readonly bounced_at?: string;
  readonly complained_at?: string;
  readonly unsubscribed_at?: string;
}

/** One step of the consent evidence: when, from where, with what. */
interface Evidence {
  readonly at?: string;
  readonly ip?: string;
  readonly user_agent?: string;
}

function Consent(props: { consent: Readonly<Record<string, unknown>> | null | undefined }) {
  if (!props.consent)
    return <p>No consent evidence: the record is older than the evidence kept.</p>;
  return (
    <dl class="pairs">
      {Object.entries(props.consent).map(([key, value]) => {
        const step = value as Evidence | string | null;
        return (
          <div key={key}>
            <dt>{key.replace(/_/g, ' ')}</dt>
            <dd>
              {step === null || typeof step !== 'object'
                ? String(step ?? '')
                : `${when(step.at)}${step.ip ? ` from ${step.ip}` : ''}${step.user_agent ? ` (${step.user_agent})` : ''}`}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

const EVENTS: readonly [keyof Received, string][] = [
  ['opened_at', 'opened'],
  ['clicked_at', 'clicked'],
  ['bounced_at', 'bounced'],
  ['complained_at', 'complained'],
  ['unsubscribed_at', 'unsubscribed through it'],
];

function Issues(props: { id: number }) {
  const { api } = useSession();
  const [more, setMore] = useState<{ items: Received[]; next: string | undefined }>();
  const first = useLoad(
    () =>
      api.call<Received[]>(`/subscribers/${props.id}/issues`).then((a) => {
        setMore({ items: a.body, next: nextLink(a.headers) });
        return a.body;
      }),
    [props.id],
  );
  const load = useAction();
  const items = more?.items ?? [];
  return (
    <section aria-labelledby="got-heading">
      <h2 id="got-heading">Issues they got</h2>
      <p class="hint">
        When they opened or clicked an issue shows only while tracking is individual (settings,
        campaign.tracking); counts keeps no one's opens or clicks.
      </p>
      {first.loading && <Busy label="Loading their issues…" />}
      <Problem error={first.error} />
      {more && items.length === 0 && !more.next && <p>None yet.</p>}
      {items.length > 0 && (
        <ul>
          {items.map((issue) => (
            <li key={issue.id}>
              <a href={`/issues/${issue.id}`}>{issue.subject}</a>: {issue.outcome}
              {issue.reason ? ` (${issue.reason})` : ''}, {when(issue.at)}
              {EVENTS.filter(([key]) => issue[key]).map(
                ([key, word]) => `; ${word} ${when(String(issue[key]))}`,
              )}
            </li>
          ))}
        </ul>
      )}
      {more?.next && (
        <button
          type="button"
          class="secondary"
          disabled={load.busy}
          onClick={() =>
            void load.run(async () => {
              const answer = await api.call<Received[]>(more.next ?? '');
              setMore({ items: [...items, ...answer.body], next: nextLink(answer.headers) });
            })
          }
        >
          Older issues
        </button>
      )}
      {load.busy && <Busy label="Loading older issues…" />}
      <Problem error={load.error} />
    </section>
  );
}

export function SubscriberPage(props: { id: string }) {
  const { api } = useSession();
  const { route } = useLocation();
  const [round, setRound] = useState(0);
  const subscriber = useLoad(
    () => api.call<Subscriber>(`/subscribers/${encodeURIComponent(props.id)}`).then((a) => a.body),
    [props.id, round],
  );
  const lists = useLoad(() => api.call<List[]>('/lists').then((a) => a.body), []);
  const fields = useLoad(
    () =>
      api.call<ExtraField[]>('/extrafields').then(
        (a) => a.body,
        () => [] as ExtraField[],
      ),
    [],
  );
  const save = useAction();
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const [confirmDelete, setConfirmDelete] = useState(false);

  const data = subscriber.data;
  if (!data) {
    return (
      <Page title="Subscriber">
        {subscriber.loading && <Busy label="Loading the subscriber…" />}
        <Problem error={subscriber.error} />
      </Page>
    );
  }

  async function change(body: object, what: string) {
    setSaved(undefined);
    const done = await save.run(() =>
      api.call<Subscriber>(`/subscribers/${data?.id}`, { method: 'PUT', body }),
    );
    if (done) {
      setSaved(what);
      setRound((n) => n + 1);
    }
  }

  const on = new Set(data.lists.map((l) => l.id));
  return (
    <Page title={data.email}>
      <p>
        Status: <strong data-status={data.status}>{data.status}</strong> · id {data.id}
      </p>
      <form
        key={`${data.id}-${round}`}
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const chosen = new Set(form.getAll('lists').map(Number));
          const known = (lists.data ?? []).map((l) => l.id);
          void change(
            {
              first_name: String(form.get('first_name') ?? ''),
              last_name: String(form.get('last_name') ?? ''),
              // Lists not chosen are removed (a negative id), the chosen added.
              lists: known.map((id) => (chosen.has(id) ? id : -id)),
              extra_fields: (fields.data ?? []).map((f) => ({
                id: f.id,
                value: String(form.get(`field-${f.id}`) ?? ''),
              })),
            },
            'Saved.',
          );
        }}
      >
        <h2>Fields</h2>
        <label for="first_name">First name</label>
        <input id="first_name" name="first_name" defaultValue={data.first_name} />
        <label for="last_name">Last name</label>
        <input id="last_name" name="last_name" defaultValue={data.last_name} />
        {(fields.data ?? []).map((f) => (
          <div key={f.id}>
            <label for={`field-${f.id}`}>{f.name}</label>
            <input
              id={`field-${f.id}`}
              name={`field-${f.id}`}
              defaultValue={data.extra_fields.find((e) => e.id === f.id)?.value ?? ''}
            />
          </div>
        ))}
        <fieldset>
          <legend>Lists</legend>
          {(lists.data ?? []).map((list) => (
            <label key={list.id} class="check">
              <input
                type="checkbox"
                name="lists"
                value={list.id}
                defaultChecked={on.has(list.id)}
              />{' '}
              {list.name}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={save.busy}>
          Save changes
        </button>
      </form>
      {save.busy && <Busy label="Saving…" />}
      <Problem error={save.error} />
      {saved && <Done>{saved}</Done>}
      <section aria-labelledby="consent-heading">
        <h2 id="consent-heading">Consent evidence</h2>
        <Consent consent={data.consent} />
      </section>
      <Issues id={data.id} />
      <section aria-labelledby="leave-heading">
        <h2 id="leave-heading">Unsubscribe or delete</h2>
        <ul class="actions">
          {data.status !== 'unsubscribed' && (
            <li>
              <button
                type="button"
                class="secondary"
                onClick={() => void change({ status: 'unsubscribed' }, 'Unsubscribed.')}
              >
                Unsubscribe
              </button>
            </li>
          )}
          <li>
            <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
              Delete…
            </button>
          </li>
        </ul>
        {confirmDelete && (
          <Confirm label="Confirm the deletion">
            <p id="delete-question">
              Delete {data.email}? This erases them and their data, and cannot be undone.
            </p>
            <button
              type="button"
              class="danger"
              disabled={save.busy}
              onClick={() =>
                void save
                  .run(() => api.call(`/subscribers/${data.id}`, { method: 'DELETE' }))
                  .then((done) => {
                    if (done !== undefined)
                      route(`/subscribers?deleted=${encodeURIComponent(data.email)}`);
                  })
              }
            >
              Delete for good
            </button>{' '}
            <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>
              Keep them
            </button>
          </Confirm>
        )}
      </section>
    </Page>
  );
}
