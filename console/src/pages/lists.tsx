/** Lists: their member counts; admins create, rename and delete them. */
import { useState } from 'preact/hooks';
import { useSession } from '../session/session.tsx';
import { type List, membersOf } from '../types.ts';
import { Busy, Done, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { ScrollBox } from '../ui/scroll-box.tsx';
import { useLoad } from '../ui/use-load.ts';
import { useAction } from './issue-actions.tsx';

function ListRow(props: { list: List; admin: boolean; changed: (what: string) => void }) {
  const { api } = useSession();
  const { list } = props;
  const [renaming, setRenaming] = useState(false);
  const action = useAction();
  const members = membersOf(list);
  return (
    <tr>
      <td>{list.id}</td>
      <td>
        {renaming ? (
          <form
            class="row"
            onSubmit={(event) => {
              event.preventDefault();
              const name = (event.currentTarget.elements.namedItem('name') as HTMLInputElement)
                .value;
              void action
                .run(() => api.call(`/lists/${list.id}`, { method: 'PUT', body: { name } }))
                .then((done) => {
                  if (done === undefined) return;
                  setRenaming(false);
                  props.changed(`Renamed to ${name}.`);
                });
            }}
          >
            <label for={`rename-${list.id}`} class="visually-hidden">
              New name of {list.name}
            </label>
            <input id={`rename-${list.id}`} name="name" defaultValue={list.name} required />
            <button type="submit">Save</button>
            <button type="button" class="secondary" onClick={() => setRenaming(false)}>
              Cancel
            </button>
          </form>
        ) : (
          list.name
        )}
        <Problem error={action.error} />
      </td>
      <td>{members === undefined ? '–' : members}</td>
      {props.admin && (
        <td>
          <button
            type="button"
            class="secondary"
            onClick={() => setRenaming(true)}
            aria-label={`Rename ${list.name}`}
          >
            Rename
          </button>{' '}
          <button
            type="button"
            class="danger"
            aria-label={`Delete ${list.name}`}
            disabled={action.busy}
            onClick={() =>
              void action
                .run(() => api.call(`/lists/${list.id}`, { method: 'DELETE' }))
                .then((done) => done !== undefined && props.changed(`Deleted ${list.name}.`))
            }
          >
            Delete
          </button>
        </td>
      )}
    </tr>
  );
}

export function ListsPage() {
  const { api, person } = useSession();
  const admin = person?.role === 'admin';
  const [round, setRound] = useState(0);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const lists = useLoad(() => api.call<List[]>('/lists?per_page=100').then((a) => a.body), [round]);
  const create = useAction();
  const changed = (what: string) => {
    setNotice(what);
    setRound((n) => n + 1);
  };
  return (
    <Page title="Lists">
      {admin && (
        <form
          class="row"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            const name = (form.elements.namedItem('name') as HTMLInputElement).value;
            const hidden = (form.elements.namedItem('private') as HTMLInputElement).checked;
            void create
              .run(() =>
                api.call<List>('/lists', { method: 'POST', body: { name, private: hidden } }),
              )
              .then((made) => {
                if (!made) return;
                form.reset();
                changed(`Created ${made.body.name}.`);
              });
          }}
        >
          <div>
            <label for="new-list">New list's name</label>
            <input id="new-list" name="name" required maxLength={100} />
          </div>
          <label class="check">
            <input type="checkbox" name="private" /> Private
          </label>
          <button type="submit" disabled={create.busy}>
            Create list
          </button>
        </form>
      )}
      {create.busy && <Busy label="Creating the list…" />}
      <Problem error={create.error} />
      {notice && <Done>{notice}</Done>}
      {lists.loading && !lists.data && <Busy label="Loading the lists…" />}
      <Problem error={lists.error} />
      {lists.data && (
        <ScrollBox label="Lists table">
          <table>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Name</th>
                <th scope="col">Members</th>
                {admin && <th scope="col">Change</th>}
              </tr>
            </thead>
            <tbody>
              {lists.data.map((list) => (
                <ListRow key={`${list.id}-${round}`} list={list} admin={admin} changed={changed} />
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </Page>
  );
}
