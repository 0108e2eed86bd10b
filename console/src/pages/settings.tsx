/**
 * Settings (admins): the settings document, validated by the API as the CLI validates it, and
 * the SES account's quota, rate and reputation against SES's review thresholds.
 */
import { useState } from 'preact/hooks';
import { useSession } from '../session/session.tsx';
import { Busy, Done, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { useLoad } from '../ui/use-load.ts';
import { useAction } from './issue-actions.tsx';

/** `GET /account`, as far as the console names its figures. */
type Account = Readonly<Record<string, unknown>>;

const LABELS: Readonly<Record<string, string>> = {
  max_24_hour_send: 'Daily quota (mails per 24 hours)',
  sent_last_24_hours: 'Sent in the last 24 hours',
  max_send_rate: 'Maximum rate (mails per second)',
  bounce_rate: 'Bounce rate',
  complaint_rate: 'Complaint rate',
};

function label(key: string): string {
  return LABELS[key] ?? key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

function show(value: unknown): string {
  if (typeof value === 'number') return value.toLocaleString();
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function AccountView() {
  const { api } = useSession();
  const account = useLoad(() => api.call<Account>('/account').then((a) => a.body), []);
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">SES account</h2>
      {account.loading && <Busy label="Asking SES…" />}
      <Problem error={account.error} />
      {account.data && (
        <dl class="pairs">
          {Object.entries(account.data).map(([key, value]) =>
            value !== null && typeof value === 'object' && !Array.isArray(value) ? (
              <div key={key}>
                <dt>{label(key)}</dt>
                <dd>
                  {Object.entries(value as Record<string, unknown>)
                    .map(([k, v]) => `${label(k)}: ${show(v)}`)
                    .join(' · ')}
                </dd>
              </div>
            ) : (
              <div key={key}>
                <dt>{label(key)}</dt>
                <dd>{show(value)}</dd>
              </div>
            ),
          )}
        </dl>
      )}
    </section>
  );
}

export function SettingsPage() {
  const { api } = useSession();
  const [round, setRound] = useState(0);
  const [text, setText] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const settings = useLoad(async () => {
    const body = (await api.call<unknown>('/settings')).body;
    setText(JSON.stringify(body, null, 2));
    return body;
  }, [round]);
  const save = useAction();
  return (
    <Page title="Settings">
      <AccountView />
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings document</h2>
        {settings.loading && <Busy label="Loading the settings…" />}
        <Problem error={settings.error} />
        {text !== undefined && (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              setSaved(false);
              void save.run(async () => {
                let document: unknown;
                try {
                  document = JSON.parse(text);
                } catch (failure) {
                  throw new Error(`The settings are not JSON: ${(failure as Error).message}`);
                }
                await api.call('/settings', { method: 'PUT', body: document });
                setSaved(true);
                setRound((n) => n + 1);
              });
            }}
          >
            <label for="settings">The settings as JSON (checked as the CLI checks them)</label>
            <textarea
              id="settings"
              rows={24}
              spellcheck={false}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
              aria-describedby={save.error === undefined ? undefined : 'settings-error'}
            />
            <button type="submit" disabled={save.busy}>
              Save settings
            </button>
          </form>
        )}
        {save.busy && <Busy label="Saving the settings…" />}
        <Problem error={save.error} id="settings-error" />
        {saved && <Done>The settings are saved. Functions read them within 5 minutes.</Done>}
      </section>
    </Page>
  );
}
