import { CachedParameters } from '../adapters/parameters/cached-parameters.ts';
import { extensionParameterSource } from '../adapters/parameters/extension-source.ts';
import type { ParameterSource } from '../adapters/parameters/parameter-source.ts';
import { ServiceParameters } from '../adapters/parameters/service-parameters.ts';
import type { Environment } from './environment.ts';

/**
 * The API key and the settings of a Lambda function: read through the AWS Parameters and
 * Secrets Lambda Extension (no SSM client in the bundle), cached for the environment's
 * parameter cache lifetime. Call once per container.
 */
export function serviceParameters(
  environment: Environment,
  source: ParameterSource = extensionParameterSource(),
): ServiceParameters {
  return new ServiceParameters(
    environment,
    new CachedParameters(source, environment.parameterCacheMs),
  );
}
