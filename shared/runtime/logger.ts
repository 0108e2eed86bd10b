import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogFields, Logger } from '../operations/dependencies.ts';

/** The service name every log line and metric carries. */
export const SERVICE_NAME = 'newsletter';

/**
 * The logger of a Lambda function: Powertools for AWS Lambda's Logger, one JSON object per line
 * with the invocation's request id and cold-start flag once its middleware has the context
 * (functions/http/observability.ts), behind the Logger port the operations use.
 */
export function createLogger(): { readonly log: Logger; readonly powertools: PowertoolsLogger } {
  const powertools = new PowertoolsLogger({ serviceName: SERVICE_NAME });
  const line = (level: 'info' | 'warn' | 'error') => (event: string, fields?: LogFields) =>
    powertools[level](event, { ...fields });
  return {
    log: { info: line('info'), warn: line('warn'), error: line('error') },
    powertools,
  };
}
