/** People (admins): who may sign in, with which role; add one (temporary password shown once), remove one. */
import { useState } from 'preact/hooks';
import { useSession } from '../session/session.tsx';
import { Busy, Done, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { ScrollBox } from '../ui/scroll-box.tsx';
import { useLoad } from '../ui/use-load.ts';
import { useAction } from './issue-actions.tsx';

interface PersonRow {
  readonly email: string;
  readonly role: string;
  readonly status?: string;
}

export function PeoplePage() {
  const { api, person } = useSession();
  const [round, setRound] = useState(0);
  const people = useLoad(() => api.call<PersonRow[]>('/people').then((a) => a.body), [round]);
  const add = useAction();
  const remove = useAction();
  const [added, setAdded] = useState<{ email: string; password: string } | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  return (
    <Page title="People">
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const email = (form.elements.namedItem('email') as HTMLInputElement).value;
          const role = (form.elements.namedItem('role') as HTMLSelectElement).value;
          setAdded(undefined);
          setNotice(undefined);
          void add
            .run(() =>
              api.call<Record<string, string>>('/people', {
                method: 'POST',
                body: { email, role },
              }),
            )
            .then((answer) => {
              if (!answer) return;
              const body = answer.body;
              const password =
                body.temporary_password ?? body.temporaryPassword ?? body.password ?? '';
              setAdded({ email, password });
              form.reset();
              setRound((n) => n + 1);
            });
        }}
      >
        <div>
          <label for="person-email">Email address</label>
          <input id="person-email" name="email" type="email" required />
        </div>
        <div>
          <label for="person-role">Role</label>
          <select id="person-role" name="role">
            <option value="editor">editor (issues only)</option>
            <option value="admin">admin (everything)</option>
          </select>
        </div>
        <button type="submit" disabled={add.busy}>
          Add person
        </button>
      </form>
      {add.busy && <Busy label="Adding…" />}
      <Problem error={add.error} />
      {added && (
        <div class="done" role="status">
          <p>
            Added {added.email}. Their temporary password, shown only this once:{' '}
            <code data-temporary-password>{added.password}</code>
          </p>
          <p>Give it to them privately; they choose their own when they first sign in.</p>
        </div>
      )}
      {notice && <Done>{notice}</Done>}
      {people.loading && !people.data && <Busy label="Loading people…" />}
      <Problem error={people.error} />
      {remove.busy && <Busy label="Removing…" />}
      <Problem error={remove.error} />
      {people.data && (
        <ScrollBox label="People table">
          <table>
            <thead>
              <tr>
                <th scope="col">Address</th>
                <th scope="col">Role</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {people.data.map((row) => (
                <tr key={row.email}>
                  <td>{row.email}</td>
                  <td>{row.role}</td>
                  <td>
                    {row.email === person?.email ? (
                      'you'
                    ) : (
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Remove ${row.email}`}
                        onClick={() =>
                          void remove
                            .run(() =>
                              api.call(`/people/${encodeURIComponent(row.email)}`, {
                                method: 'DELETE',
                              }),
                            )
                            .then((done) => {
                              if (done === undefined) return;
                              setNotice(`Removed ${row.email}: they can no longer sign in.`);
                              setRound((n) => n + 1);
                            })
                        }
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </Page>
  );
}
