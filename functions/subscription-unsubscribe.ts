import type { DynamoCampaignStore } from '../shared/adapters/store/dynamo-campaign-store.ts';
import type { Dependencies } from '../shared/operations/dependencies.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { checkLink, unsubscribeByLink } from '../shared/operations/token-links.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { campaignStore, tableStore } from '../shared/runtime/store.ts';
import { createFunctionRuntime } from './http/function-runtime.ts';
import { pageHandler } from './http/page-handler.ts';
import { unsubscribePage } from './http/pages/unsubscribe-page.ts';
import { route } from './route-table/subscription-unsubscribe.ts';

const environment = readEnvironment();
const runtime = createFunctionRuntime();
// No settings, no key: the link itself is the authority. Campaign mails' links are checked
// against their recipient records.
const deps: Pick<Dependencies, 'store' | 'now' | 'log' | 'metrics'> & {
  readonly campaigns: DynamoCampaignStore;
} = {
  store: tableStore(environment),
  campaigns: campaignStore(environment),
  now: () => new Date(),
  log: runtime.log,
  metrics: runtime.metrics,
};

/** The unsubscribe link: GET shows a button, POST (or RFC 8058 one-click) unsubscribes. */
export const handler = pageHandler(route, runtime, {
  show: unsubscribePage,
  check: (token) => runOperation(deps, 'check_link', () => checkLink(deps, token, 'unsubscribe')),
  act: (token, _context, oneClick) =>
    runOperation(deps, 'unsubscribe_link', () =>
      unsubscribeByLink(deps, token, oneClick ? 'one_click' : 'link'),
    ),
});
