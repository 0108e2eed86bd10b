import { isIP } from 'node:net';
import { type NewsletterError, newsletterError } from '../errors.ts';
import { isPublicAddress } from './webhook-address.ts';

/** Where webhooks may go. */
export interface WebhookUrlPolicy {
  /**
   * Plain `http` to a loopback address: only the local cloud sets it, for its test receiver;
   * a deployed stack never does, so on AWS every endpoint is `https` to a public address.
   */
  readonly allowLocalHttp: boolean;
}

/** The longest URL an endpoint may have. */
export const MAX_URL_LENGTH = 2_000;

/** Host names that never resolve to the public internet. */
const PRIVATE_NAMES = /(^|\.)(localhost|local|internal|intranet|home\.arpa|lan)$/i;

/**
 * A webhook endpoint's URL, checked before it is stored ([webhooks.url]): absolute, `https`,
 * no credentials in it, no fragment, a host that is a public address or a name that is not a
 * private one. Where the name resolves is checked again at every delivery (the DNS answer may
 * change), by the sender.
 */
export function parseWebhookUrl(raw: unknown, policy: WebhookUrlPolicy): URL | NewsletterError {
  const invalid = (why: string) => newsletterError('invalid_parameter', `url: ${why}`);
  if (typeof raw !== 'string' || raw.length === 0) return invalid('a URL is required');
  if (raw.length > MAX_URL_LENGTH) return invalid(`at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return invalid('not an absolute URL');
  }
  if (url.username || url.password) return invalid('no user name or password in the URL');
  if (url.hash) return invalid('no fragment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) !== 0;
  const local = policy.allowLocalHttp && (host === '127.0.0.1' || host === '::1');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    return invalid('must be https');
  if (local) return url;
  if (literal ? !isPublicAddress(host) : PRIVATE_NAMES.test(host) || !host.includes('.'))
    return invalid('must be a public host: no private, loopback or link-local address');
  return url;
}
