import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Metrics as PowertoolsMetrics } from '@aws-lambda-powertools/metrics';
import type { Logger, Metrics } from '../../shared/operations/dependencies.ts';
import { createLogger } from '../../shared/runtime/logger.ts';
import { createMetrics } from '../../shared/runtime/metrics.ts';

/** What every function of the API logs and counts with; built once per container. */
export interface FunctionRuntime {
  /** The Logger port, for the operations. */
  readonly log: Logger;
  /** The same logger, for its middleware (request id, cold start on every line). */
  readonly logger: PowertoolsLogger;
  /** The Metrics port, for the operations. */
  readonly metrics: Metrics;
  /** The same metrics, for their middleware (publishes what an invocation counted). */
  readonly metricsPublisher: PowertoolsMetrics;
}

/** Powertools logging and metrics for one function; call once, at module scope. */
export function createFunctionRuntime(): FunctionRuntime {
  const { log, powertools: logger } = createLogger();
  const { metrics, powertools: metricsPublisher } = createMetrics();
  return { log, logger, metrics, metricsPublisher };
}
