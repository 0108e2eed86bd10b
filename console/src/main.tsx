/**
 * The web console: sign-in, then the pages of the issue "A web console for the people who run
 * the newsletter" (docs/console.md). Client-side routes: every path that is not a file is
 * served `/index.html`, and the router picks the page.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router } from 'preact-iso/router';
import { type ConsoleConfig, loadConfig } from './config.ts';
import { IssuePage } from './pages/issue.tsx';
import { IssueEditor } from './pages/issue-editor.tsx';
import { IssuesPage } from './pages/issues.tsx';
import { ListsPage } from './pages/lists.tsx';
import { PeoplePage } from './pages/people.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { SubscriberPage } from './pages/subscriber.tsx';
import { SubscribersPage } from './pages/subscribers.tsx';
import { ExportPage, ImportPage } from './pages/transfer.tsx';
import { SessionProvider, useSession } from './session/session.tsx';
import { AdminOnly, Layout, Page } from './ui/layout.tsx';

const admin =
  <P extends object>(Component: (props: P) => preact.JSX.Element) =>
  (props: P) => (
    <AdminOnly>
      <Component {...props} />
    </AdminOnly>
  );

const Subscribers = admin(SubscribersPage);
const SubscriberOne = admin(SubscriberPage);
const Import = admin(ImportPage);
const Export = admin(ExportPage);
const Settings = admin(SettingsPage);
const People = admin(PeoplePage);

function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        There is no page at this address. <a href="/issues">Go to the issues</a>.
      </p>
    </Page>
  );
}

function Home() {
  useEffect(() => {
    history.replaceState(null, '', '/issues');
    dispatchEvent(new PopStateEvent('popstate'));
  }, []);
  return null;
}

function Pages() {
  const { person } = useSession();
  if (!person) return <SignIn />;
  return (
    <Layout>
      <Router>
        <Route path="/" component={Home} />
        <Route path="/issues" component={IssuesPage} />
        <Route path="/issues/new" component={IssueEditor} />
        <Route path="/issues/:id/edit" component={IssueEditor} />
        <Route path="/issues/:id" component={IssuePage} />
        <Route path="/subscribers" component={Subscribers} />
        <Route path="/subscribers/import" component={Import} />
        <Route path="/subscribers/export" component={Export} />
        <Route path="/subscribers/:id" component={SubscriberOne} />
        <Route path="/lists" component={ListsPage} />
        <Route path="/settings" component={Settings} />
        <Route path="/people" component={People} />
        <Route default component={NotFound} />
      </Router>
    </Layout>
  );
}

function Console() {
  const [config, setConfig] = useState<ConsoleConfig | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  useEffect(() => {
    loadConfig().then(setConfig, (error: Error) => setFailure(error.message));
  }, []);
  if (failure) {
    return (
      <main id="main">
        <h1>Newsletter console</h1>
        <p class="problem" role="alert">
          {failure}
        </p>
      </main>
    );
  }
  if (!config) {
    return (
      <main id="main">
        <h1>Newsletter console</h1>
        <p role="status">Loading…</p>
      </main>
    );
  }
  return (
    <SessionProvider config={config}>
      <LocationProvider>
        <Pages />
      </LocationProvider>
    </SessionProvider>
  );
}

const root = document.getElementById('app');
if (root) render(<Console />, root);
