import { MetricUnit, Metrics as PowertoolsMetrics } from '@aws-lambda-powertools/metrics';
import type { MetricDimensions, MetricName, Metrics } from '../operations/dependencies.ts';
import { SERVICE_NAME } from './logger.ts';

/** The CloudWatch namespace of the service's metrics; the stack's alarms read it. */
export const METRICS_NAMESPACE = 'Newsletter';

/**
 * The metrics of a Lambda function: Powertools for AWS Lambda's Metrics, written as CloudWatch
 * embedded metric format (EMF) log lines that CloudWatch turns into metrics, no API call. Its
 * middleware publishes what an invocation counted (functions/http/observability.ts).
 */
export function createMetrics(): {
  readonly metrics: Metrics;
  readonly powertools: PowertoolsMetrics;
} {
  const powertools = new PowertoolsMetrics({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
  });
  type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];
  const publish = (name: MetricName, unit: Unit, value: number, dimensions?: MetricDimensions) => {
    powertools.addMetric(name, unit, value);
    if (dimensions?.newsletter) {
      // A metric of its own, published at once: its dimension must not reach the others.
      const single = powertools.singleMetric();
      single.addDimension('newsletter', dimensions.newsletter);
      single.addMetric(name, unit, value);
    }
  };
  return {
    metrics: {
      count: (name, value = 1, dimensions) => publish(name, MetricUnit.Count, value, dimensions),
      percent: (name, value, dimensions) => publish(name, MetricUnit.Percent, value, dimensions),
    },
    powertools,
  };
}
