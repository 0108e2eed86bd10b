import { SESClient } from '@aws-sdk/client-ses';
import { CLIENT_OPTIONS } from './client-options.ts';

let client: SESClient | undefined;

/** The container's one SES client, created on first use; only functions that send mail or ask SES's quota import it. */
export function sesClient(): SESClient {
  client ??= new SESClient(CLIENT_OPTIONS);
  return client;
}
