/**
 * Measurement stand-in (bench/decisions.ts): what a function would carry if it read its
 * parameters with the SDK's SSM client (one GetParameters call) instead of the Parameters and
 * Secrets extension. Swapped in for shared/adapters/parameters/extension-source.ts at build
 * time; never deployed.
 */
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { ParameterSource } from '../../shared/adapters/parameters/parameter-source.ts';

export function extensionParameterSource(): ParameterSource {
  const client = new SSMClient({});
  return async (names) => {
    const output = await client.send(
      new GetParametersCommand({ Names: [...names], WithDecryption: true }),
    );
    return new Map(
      names.map((name) => [name, output.Parameters?.find((p) => p.Name === name)?.Value]),
    );
  };
}
