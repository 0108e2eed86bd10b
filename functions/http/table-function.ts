import type { ServiceParameters } from '../../shared/adapters/parameters/service-parameters.ts';
import type { Dependencies } from '../../shared/operations/dependencies.ts';
import { useBackgroundDynamoDb } from '../../shared/runtime/dynamodb-client.ts';
import { readEnvironment } from '../../shared/runtime/environment.ts';
import { serviceParameters } from '../../shared/runtime/parameters.ts';
import { tableStore } from '../../shared/runtime/store.ts';
import { createFunctionRuntime, type FunctionRuntime } from './function-runtime.ts';

/** What a function over the table builds once per container. */
export interface TableFunction {
  readonly runtime: FunctionRuntime;
  /** The key and the settings, read through the extension only when first asked for. */
  readonly parameters: ServiceParameters;
  /** The operations' dependencies, without a mailer: functions that send mail add theirs. */
  readonly deps: Dependencies;
}

/**
 * The wiring every table-backed function shares; call once, at module scope. `background`: a
 * function no caller waits on (the campaign engine), whose DynamoDB calls retry longer.
 */
export function tableFunction(options: { readonly background?: boolean } = {}): TableFunction {
  if (options.background) useBackgroundDynamoDb();
  const environment = readEnvironment();
  const runtime = createFunctionRuntime();
  const parameters = serviceParameters(environment);
  return {
    runtime,
    parameters,
    deps: {
      store: tableStore(environment),
      settings: parameters.settings,
      now: () => new Date(),
      log: runtime.log,
      metrics: runtime.metrics,
    },
  };
}
