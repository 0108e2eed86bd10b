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

/** A reputation figure against the levels at which SES reviews and may pause an account. */
interface RateLevels {
  readonly rate: number;
  readonly review_at: number;
  readonly pause_at: number;
  readonly state: 'none' | 'ok' | 'review' | 'pause';
}

/** `GET /account`. */
interface Account {
  readonly max_24_hour_send: number;
  readonly sent_last_24_hours: number;
  readonly max_send_rate: number;
  readonly statistics?: { readonly since: string; readonly delivery_attempts: number };
  readonly bounce_rate: RateLevels;
  readonly complaint_rate: RateLevels;
}

const percent = (share: number) => `${(share * 100).toFixed(share < 0.01 ? 2 : 1)}%`;

const STATE_WORDS: Readonly<Record<RateLevels['state'], string>> = {
  none: 'no mail sent in the period yet',
  ok: 'below the review level',
  review: 'at or above the review level: SES may review the account; find the cause now',
  pause: 'at or above the pause level: SES may pause sending; stop and clean the lists',
};

function Rate(props: { name: string; levels: RateLevels }) {
  const { levels } = props;
  return (
    <div>
      <dt>{props.name}</dt>
      <dd class={`state-${levels.state}`} data-state={levels.state}>
        {percent(levels.rate)}: {STATE_WORDS[levels.state]} (review at {percent(levels.review_at)},
        pause at {percent(levels.pause_at)})
      </dd>
    </div>
  );
}

function AccountView() {
  const { api } = useSession();
  const account = useLoad(() => api.call<Account>('/account').then((a) => a.body), []);
  const data = account.data;
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">SES account</h2>
      {account.loading && <Busy label="Asking SES…" />}
      <Problem error={account.error} />
      {data && (
        <dl class="pairs">
          <div>
            <dt>Daily quota</dt>
            <dd>
              {data.sent_last_24_hours.toLocaleString()} of {data.max_24_hour_send.toLocaleString()}{' '}
              sent in the last 24 hours
            </dd>
          </div>
          <div>
            <dt>Maximum rate</dt>
            <dd>{data.max_send_rate.toLocaleString()} mails a second</dd>
          </div>
          <Rate name="Bounce rate" levels={data.bounce_rate} />
          <Rate name="Complaint rate" levels={data.complaint_rate} />
          {data.statistics && (
            <div>
              <dt>Rates over</dt>
              <dd>
                {data.statistics.delivery_attempts.toLocaleString()} delivery attempts since{' '}
                {new Date(data.statistics.since).toLocaleDateString()}
              </dd>
            </div>
          )}
        </dl>
      )}
    </section>
  );
}

/** `GET /settings`: the document as written, its version, and why it is refused, if it is. */
interface SettingsAnswer {
  readonly settings: unknown;
  readonly version: number;
  readonly problem: string | null;
}

export function SettingsPage() {
  const { api } = useSession();
  const [round, setRound] = useState(0);
  const [text, setText] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const settings = useLoad(async () => {
    const body = (await api.call<SettingsAnswer>('/settings')).body;
    setText(
      typeof body.settings === 'string' ? body.settings : JSON.stringify(body.settings, null, 2),
    );
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
        {settings.data?.problem && (
          <p class="problem" role="alert">
            The functions refuse the stored settings: {settings.data.problem} Correct them below and
            save.
          </p>
        )}
        {text !== undefined && settings.data && (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              setSaved(false);
              const version = settings.data?.version;
              void save.run(async () => {
                // The text goes as it is: the API parses and checks it as `settings set` does.
                await api.call('/settings', { method: 'PUT', body: { settings: text, version } });
                setSaved(true);
                setRound((n) => n + 1);
              });
            }}
          >
            <label for="settings">
              The settings as JSON (version {settings.data.version}; checked as the CLI checks them)
            </label>
            <textarea
              id="settings"
              rows={24}
              spellcheck={false}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
              aria-describedby={save.error === undefined ? undefined : 'settings-error'}
              aria-invalid={save.error === undefined ? undefined : true}
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
