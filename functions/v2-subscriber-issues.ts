import { DynamoSubscriberDirectory } from '../shared/adapters/store/dynamo-subscriber-directory.ts';
import { DynamoSubscriberHistory } from '../shared/adapters/store/dynamo-subscriber-history.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { v2SubscriberIssues } from '../shared/operations/v2/v2-subscriber-issues.ts';
import { dynamoDocumentClient } from '../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-subscriber-issues.ts';

const { runtime, deps: table, keyCheck } = v2Function();
const deps = {
  ...table,
  directory: new DynamoSubscriberDirectory(dynamoDocumentClient(), readEnvironment().tableName),
  history: new DynamoSubscriberHistory(dynamoDocumentClient(), readEnvironment().tableName),
};

/**
 * v2 `GET /subscribers/{id}/issues` (ours): the issues the subscriber got, newest first, 50
 * issues that went out a page; `Link: <…?before=ID>; rel="next"` while older ones remain
 * ([v2.subscriber-issues]).
 */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async (params, caller) => {
    const page = await runOperation(deps, 'v2_subscriber_issues', () =>
      v2SubscriberIssues(deps, String(params.id), params.before),
    );
    if (isNewsletterError(page)) return page;
    const path = `${(caller.apiRootPath ?? '').replace(/\/v1$/, '/v2')}/subscribers/${encodeURIComponent(String(params.id))}/issues`;
    return {
      body: page.issues,
      ...(page.before === undefined
        ? {}
        : { headers: { Link: `<${path}?before=${page.before}>; rel="next"` } }),
    };
  },
});
