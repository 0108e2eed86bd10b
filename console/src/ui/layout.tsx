/** The frame of every signed-in page: skip link, navigation by role, the page's heading. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { useSession } from '../session/session.tsx';

interface NavItem {
  readonly href: string;
  readonly label: string;
  readonly adminOnly: boolean;
}

const NAV: readonly NavItem[] = [
  { href: '/issues', label: 'Issues', adminOnly: false },
  { href: '/subscribers', label: 'Subscribers', adminOnly: true },
  { href: '/lists', label: 'Lists', adminOnly: false },
  { href: '/settings', label: 'Settings', adminOnly: true },
  { href: '/people', label: 'People', adminOnly: true },
];

/** The header and navigation around every signed-in page. */
export function Layout(props: { children: ComponentChildren }) {
  const { person, signOut } = useSession();
  const { path, route } = useLocation();
  const admin = person?.role === 'admin';
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Newsletter console</span>
        <nav aria-label="Sections">
          <ul>
            {NAV.filter((item) => admin || !item.adminOnly).map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={path.startsWith(item.href) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {person?.email} ({person?.role}){' '}
          <button
            type="button"
            class="link"
            onClick={() => {
              // Whoever signs in next starts at the issues, not on the page left behind (a
              // session that ends by itself keeps its page, to come back to after signing in).
              route('/issues');
              signOut();
            }}
          >
            Sign out
          </button>
        </span>
      </header>
      <main id="main">{props.children}</main>
    </>
  );
}

/**
 * A page's heading and title; focus moves to the heading when the page opens, so a keyboard
 * or screen-reader user starts at the new page rather than at the link they left.
 */
export function Page(props: { title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Newsletter console`;
    heading.current?.focus();
  }, [props.title]);
  return (
    <>
      <h1 tabIndex={-1} ref={heading}>
        {props.title}
      </h1>
      {props.children}
    </>
  );
}

/** What an editor sees at an admin page's address. */
export function AdminOnly(props: { children: ComponentChildren }) {
  const { person } = useSession();
  if (person?.role === 'admin') return <>{props.children}</>;
  return (
    <Page title="Not allowed">
      <p class="problem" role="alert">
        You may not open this page: it is for admins, and you are signed in as{' '}
        {person?.role === 'editor' ? 'an editor' : 'a person without a role'}. Ask an admin if you
        need it.
      </p>
      <p>
        <a href="/issues">Go to the issues</a>
      </p>
    </Page>
  );
}
