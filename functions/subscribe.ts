import { SesMailer } from '../shared/adapters/mail/ses-mailer.ts';
import type { Dependencies } from '../shared/operations/dependencies.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { subscribe } from '../shared/operations/subscribe.ts';
import { sesClient } from '../shared/runtime/ses-client.ts';
import { apiHandler } from './http/api-handler.ts';
import { tableFunction } from './http/table-function.ts';

const { runtime, parameters, deps: tableDeps } = tableFunction();
const deps: Dependencies = { ...tableDeps, mailer: new SesMailer(sesClient()) };

/** `POST /subscribe`: the key is optional; without it the public-form rules apply. */
export const handler = apiHandler(
  'subscribe',
  runtime,
  { apiKey: parameters.apiKey, settings: parameters.settings },
  (params, context) => runOperation(deps, 'subscribe', () => subscribe(deps, params, context)),
);
