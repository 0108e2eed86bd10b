/**
 * Proposal (shared/aws/ses-client.ts): build the SES client on the first send instead of at
 * import. The mail-sending functions call `sesClient()` at module scope, so today the client
 * and its whole configuration are resolved during cold start, before any request needs them.
 */
import { SESClient } from '@aws-sdk/client-ses';
import { CLIENT_OPTIONS } from '../../shared/runtime/client-options.ts';

let client: SESClient | undefined;

/** The container's SES client; it is constructed when something on it is first used. */
export function sesClient(): SESClient {
  const real = (): SESClient => {
    client ??= new SESClient(CLIENT_OPTIONS);
    return client;
  };
  return new Proxy(Object.create(SESClient.prototype) as SESClient, {
    get: (_target, property) => {
      const value: unknown = Reflect.get(real(), property);
      return typeof value === 'function' ? value.bind(real()) : value;
    },
  });
}
