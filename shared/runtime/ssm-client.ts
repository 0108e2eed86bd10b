import { SSMClient } from '@aws-sdk/client-ssm';
import { CLIENT_OPTIONS } from './client-options.ts';

let client: SSMClient | undefined;

/** The container's one SSM client, created on first use. */
export function ssmClient(): SSMClient {
  client ??= new SSMClient(CLIENT_OPTIONS);
  return client;
}
