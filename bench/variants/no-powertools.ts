/**
 * Measurement stand-in (bench/decisions.ts): Powertools' Logger, Metrics and their middleware
 * reduced to empty shapes, swapped in at build time, so that the difference to the deployed
 * bundle is what observability costs in size and init time. Never deployed.
 */
export class Logger {
  info(): void {}
  warn(): void {}
  error(): void {}
  appendKeys(): void {}
  resetKeys(): void {}
}
export class Metrics {
  addMetric(): void {}
  hasStoredMetrics(): boolean {
    return false;
  }
  publishStoredMetrics(): void {}
}
export const MetricUnit = { Count: 'Count' } as const;
export const injectLambdaContext = () => ({ before: (): void => undefined });
