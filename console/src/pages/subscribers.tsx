/** Subscribers: search by address, filter by status and list, page through; import, export. */
import { useLocation } from 'preact-iso/router';
import { useSession } from '../session/session.tsx';
import { type List, type Subscriber, totalsOf } from '../types.ts';
import { Busy, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { Pager, pageOf } from '../ui/pager.tsx';
import { ScrollBox } from '../ui/scroll-box.tsx';
import { useLoad } from '../ui/use-load.ts';

const PER_PAGE = 50;

/** The statuses a subscriber can have, as the API names them. */
export const STATUSES = ['confirmed', 'not_confirmed', 'unsubscribed', 'bounced', 'complained'];

export function SubscribersPage() {
  const { api } = useSession();
  const { query, route } = useLocation();
  const page = pageOf(query);
  const search = query.search ?? '';
  const status = query.status ?? '';
  const list = query.list ?? '';
  const filters = new URLSearchParams({
    ...(search ? { search } : {}),
    ...(status ? { status } : {}),
    ...(list ? { list } : {}),
  });
  filters.delete('deleted');
  const lists = useLoad(() => api.call<List[]>('/lists').then((a) => a.body), []);
  const subscribers = useLoad(
    () => api.call<Subscriber[]>(`/subscribers?per_page=${PER_PAGE}&page=${page}&${filters}`),
    [page, search, status, list],
  );
  const totals = subscribers.data ? totalsOf(subscribers.data.headers) : undefined;
  return (
    <Page title="Subscribers">
      {query.deleted && (
        <p role="status" class="done">
          Deleted {query.deleted}.
        </p>
      )}
      <ul class="actions">
        <li>
          <a class="button" href="/subscribers/import">
            Import a CSV
          </a>
        </li>
        <li>
          <a class="button secondary" href="/subscribers/export">
            Export as CSV
          </a>
        </li>
      </ul>
      <form
        class="row"
        aria-label="Find subscribers"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const next = new URLSearchParams();
          for (const [name, value] of form) if (value) next.set(name, String(value));
          route(`/subscribers?${next}`);
        }}
      >
        <div>
          <label for="search">Address starts with</label>
          <input id="search" name="search" type="search" defaultValue={search} />
        </div>
        <div>
          <label for="status">Status</label>
          <select id="status" name="status" defaultValue={status}>
            <option value="">Any</option>
            {STATUSES.map((each) => (
              <option key={each} value={each}>
                {each}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="list">List</label>
          <select id="list" name="list" defaultValue={list}>
            <option value="">Any</option>
            {(lists.data ?? []).map((each) => (
              <option key={each.id} value={each.id}>
                {each.name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Search</button>
      </form>
      {subscribers.loading && <Busy label="Loading subscribers…" />}
      <Problem error={subscribers.error} />
      {subscribers.data && subscribers.data.body.length === 0 && <p>No subscriber matches.</p>}
      {subscribers.data && subscribers.data.body.length > 0 && (
        <ScrollBox label="Subscribers table">
          <table>
            <thead>
              <tr>
                <th scope="col">Address</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Lists</th>
              </tr>
            </thead>
            <tbody>
              {subscribers.data.body.map((each) => (
                <tr key={each.id}>
                  <td>
                    <a href={`/subscribers/${each.id}`}>{each.email}</a>
                  </td>
                  <td>{`${each.first_name} ${each.last_name}`.trim()}</td>
                  <td>{each.status}</td>
                  <td>{each.lists.map((l) => l.name || `#${l.id}`).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {totals && (
        <Pager
          page={page}
          pages={totals.pages}
          total={totals.total}
          href={(n) =>
            `/subscribers?${new URLSearchParams({ ...Object.fromEntries(filters), page: String(n) })}`
          }
        />
      )}
    </Page>
  );
}
