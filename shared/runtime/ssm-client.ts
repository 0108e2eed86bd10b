import { SSMClient } from '@aws-sdk/client-ssm';
import { CLIENT_OPTIONS } from './client-options.ts';

let client: SSMClient | undefined;

/**
 * The container's one SSM client, created on first use; only the functions that write the
 * settings import it (every other read goes through the Parameters and Secrets extension).
 */
export function ssmClient(): SSMClient {
  client ??= new SSMClient(CLIENT_OPTIONS);
  return client;
}
