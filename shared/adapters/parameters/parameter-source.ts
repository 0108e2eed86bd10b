/**
 * Reads SSM parameters, decrypted: the value of each name, or undefined for one that does not
 * exist. Throws DependencyError('ssm') when SSM cannot be reached or refuses for now.
 */
export type ParameterSource = (
  names: readonly string[],
) => Promise<ReadonlyMap<string, string | undefined>>;
