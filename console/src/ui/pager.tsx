/** Previous and next page of a collection, kept in the address (`?page=`). */
export function Pager(props: {
  page: number;
  pages: number;
  total: number;
  href: (page: number) => string;
}) {
  const { page, pages } = props;
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? <a href={props.href(page - 1)}>Previous page</a> : <span />}
      <span>
        Page {page} of {pages} ({props.total} in all)
      </span>
      {page < pages ? <a href={props.href(page + 1)}>Next page</a> : <span />}
    </nav>
  );
}

/** The page number of a query, 1 when absent or unreadable. */
export function pageOf(query: Record<string, string>): number {
  const page = Number(query.page);
  return Number.isInteger(page) && page > 0 ? page : 1;
}
