import { runOperation } from '../shared/operations/run-operation.ts';
import { checkLink, confirmByLink } from '../shared/operations/token-links.ts';
import { pageHandler } from './http/page-handler.ts';
import { confirmPage } from './http/pages/confirm-page.ts';
import { tableFunction } from './http/table-function.ts';
import { route } from './route-table/subscription-confirm.ts';

const { runtime, deps } = tableFunction();

/** The activation link: GET shows the confirm button (scanners confirm nobody), POST confirms. */
export const handler = pageHandler(route, runtime, {
  show: confirmPage,
  check: (token) => runOperation(deps, 'check_link', () => checkLink(deps, token, 'confirm')),
  act: (token, context) =>
    runOperation(deps, 'confirm_subscription', () => confirmByLink(deps, token, context)),
});
