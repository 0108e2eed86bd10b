import { CognitoTokenVerifier } from '../../shared/adapters/people/cognito-token-verifier.ts';
import type { PersonTokenVerifier } from '../../shared/adapters/people/person-token-port.ts';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import {
  ClientKeyCache,
  type KeyCheckDependencies,
} from '../../shared/operations/v2/check-client-key.ts';
import { dynamoDocumentClient } from '../../shared/runtime/dynamodb-client.ts';
import { ENV, readEnvironment } from '../../shared/runtime/environment.ts';
import { type TableFunction, tableFunction } from './table-function.ts';

/** How a v2 function checks its callers: client keys, and signed-in people's tokens. */
export type CallerChecks = KeyCheckDependencies & {
  /** Absent where the stack names no user pool: a bearer token is then refused. */
  readonly people?: PersonTokenVerifier;
};

/** What a v2 function builds once per container: the table function and its caller checks. */
export interface V2Function extends TableFunction {
  readonly keyCheck: CallerChecks;
}

/**
 * The verifier of the console's ID tokens, from the pool the stack names; built once per
 * container, so the pool's keys are fetched once and kept ([console.token]).
 */
export function personTokens(
  env: NodeJS.ProcessEnv = process.env,
): PersonTokenVerifier | undefined {
  const userPoolId = env[ENV.userPoolId];
  const clientId = env[ENV.userPoolClientId];
  if (!userPoolId || !clientId) return undefined;
  const region = env.AWS_REGION ?? userPoolId.split('_')[0];
  return new CognitoTokenVerifier({
    userPoolId,
    clientId,
    issuerDomain: env[ENV.cognitoIssuerDomain] || `https://cognito-idp.${region}.amazonaws.com`,
  });
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
      ...optional('people', personTokens()),
    },
  };
}

function optional<K extends string, T>(key: K, value: T | undefined): Partial<Record<K, T>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, T>);
}
