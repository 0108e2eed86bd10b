import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import {
  ClientKeyCache,
  type KeyCheckDependencies,
} from '../../shared/operations/v2/check-client-key.ts';
import { dynamoDocumentClient } from '../../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { type TableFunction, tableFunction } from './table-function.ts';

/** What a v2 function builds once per container: the table function and its key check. */
export interface V2Function extends TableFunction {
  readonly keyCheck: KeyCheckDependencies;
}

/**
 * The wiring of a v2 function; call once, at module scope. The key cache lives as long as the
 * container and trusts what it read for the parameter cache's lifetime, at most 5 minutes
 * ([v2.key-cache]): the same knob that bounds how long a rotated v1 key still works.
 */
export function v2Function(): V2Function {
  const table = tableFunction();
  const environment = readEnvironment();
  return {
    ...table,
    keyCheck: {
      ...table.deps,
      keys: new DynamoClientKeyStore(dynamoDocumentClient(), environment.tableName),
      cache: new ClientKeyCache(environment.parameterCacheMs),
    },
  };
}
