import { isNewsletterError, newsletterError } from '../shared/domain/errors.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { importCsvPart } from '../shared/operations/subscribers/import-csv-part.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { tableStore } from '../shared/runtime/store.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-subscribers-import.ts';

const { runtime, deps, keyCheck } = v2Function();
// The store with its id reservation, as the CLI's import uses it.
const store = tableStore(readEnvironment());

/**
 * v2 `POST /subscribers/import` (ours): one part of a subscriber CSV (`Content-Type:
 * text/csv`, a header row and at most 1,000 rows), imported as `npx newsletter subscribers
 * import` imports a file; `status=S` for rows without a status cell (default `C`, as the CLI)
 * ([v2.subscribers-import]).
 */
export const handler = v2Handler(
  route,
  runtime,
  keyCheck,
  {
    POST: async (params, _caller, request) => {
      if (request.csv === undefined)
        return newsletterError(
          'malformed_body',
          'Send a part of the CSV file as the body, with Content-Type: text/csv.',
        );
      const status = params.status ?? 'C';
      if (status !== 'S' && status !== 'C')
        return newsletterError('invalid_parameter', 'status must be S or C');
      const csv = request.csv;
      const result = await runOperation(deps, 'import_subscribers', () =>
        importCsvPart(
          { store, settings: deps.settings, now: deps.now, log: deps.log },
          csv,
          status,
        ),
      );
      return isNewsletterError(result) ? result : { body: result };
    },
  },
  { csvBody: true },
);
