import { SesMailer } from '../shared/adapters/mail/ses-mailer.ts';
import type { Dependencies } from '../shared/operations/dependencies.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { checkLink, confirmByLink } from '../shared/operations/token-links.ts';
import { sesClient } from '../shared/runtime/ses-client.ts';
import { pageHandler } from './http/page-handler.ts';
import { confirmPage } from './http/pages/confirm-page.ts';
import { tableFunction } from './http/table-function.ts';

const { runtime, deps: tableDeps } = tableFunction();
const deps: Dependencies = { ...tableDeps, mailer: new SesMailer(sesClient()) };

/** The activation link: GET shows the confirm button (scanners confirm nobody), POST confirms. */
export const handler = pageHandler('subscription-confirm', runtime, {
  show: confirmPage,
  check: (token) => runOperation(deps, 'check_link', () => checkLink(deps, token, 'confirm')),
  act: (token, context) =>
    runOperation(deps, 'confirm_subscription', () => confirmByLink(deps, token, context)),
});
