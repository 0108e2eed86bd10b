import { DynamoSubscriberDirectory } from '../shared/adapters/store/dynamo-subscriber-directory.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { pageHeaders } from '../shared/domain/v2/paging.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { listV2Subscribers, saveV2Subscriber } from '../shared/operations/v2/v2-subscribers.ts';
import { v2SubscribersCsvPart } from '../shared/operations/v2/v2-subscribers-csv.ts';
import { dynamoDocumentClient } from '../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { tableStore } from '../shared/runtime/store.ts';
import { csvPartAnswer, wantsCsv } from './http/v2-csv-answer.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-subscribers.ts';

const { runtime, deps: table, keyCheck } = v2Function();
const deps = {
  ...table,
  directory: new DynamoSubscriberDirectory(dynamoDocumentClient(), readEnvironment().tableName),
};
// The export reads the `recent` index as the CLI's export does (DynamoStore.allSubscribers).
const exportStore = tableStore(readEnvironment());

/** v2 `GET /subscribers` (a page, read key) and `POST /subscribers` (upsert, write key). */
export const handler = v2Handler(
  route,
  runtime,
  keyCheck,
  {
    GET: async (params, caller, request) => {
      // Ours: with Accept: text/csv, the export in parts ([v2.subscribers-csv]).
      if (wantsCsv(request)) {
        const part = await runOperation(deps, 'v2_subscribers_csv', () =>
          v2SubscribersCsvPart({ store: exportStore, settings: deps.settings }, params),
        );
        return isNewsletterError(part)
          ? part
          : csvPartAnswer(part, caller, '/subscribers', 'subscribers');
      }
      const result = await runOperation(deps, 'v2_subscribers', () =>
        listV2Subscribers(deps, params),
      );
      if (isNewsletterError(result)) return result;
      return { body: result.subscribers, headers: pageHeaders(result.total, result.page) };
    },
    POST: async (params, caller) => {
      const result = await runOperation(deps, 'v2_save_subscriber', () =>
        saveV2Subscriber(deps, params, caller),
      );
      if (isNewsletterError(result)) return result;
      return { status: result.created ? 201 : 200, body: result.subscriber };
    },
  },
  { wantsCsv },
);
