import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from '../../domain/webhooks/webhook-address.ts';
import type { WebhookHeaders } from '../../domain/webhooks/webhook-signing.ts';
import type { WebhookUrlPolicy } from '../../domain/webhooks/webhook-url.ts';

/** What became of one attempt: `ok` only for a 2xx answer. */
export interface AttemptOutcome {
  readonly ok: boolean;
  readonly status?: number;
  /** Why it failed, for the delivery log (never the receiver's body beyond its first bytes). */
  readonly error?: string;
}

/** How a delivery is made. */
export interface WebhookSenderOptions extends WebhookUrlPolicy {
  /** Every address a host name resolves to (DNS); injected by tests. */
  readonly resolve?: (host: string) => Promise<readonly string[]>;
  /** Milliseconds to wait for the receiver's answer. */
  readonly timeoutMs?: number;
}

const resolveAll = async (host: string): Promise<readonly string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map((answer) => answer.address);

/** What of an answer's body goes in the log: its first bytes. */
const ERROR_BODY_BYTES = 200;

/**
 * Posts one signed event to an endpoint ([webhooks.ssrf]). The host is resolved here and every
 * answer must be a public address (a name that also resolves to a private one is refused
 * whole); the connection goes to the address that was checked (not a second lookup, which a
 * DNS rebinding could answer differently), with the name kept for TLS and `Host`. Redirects are
 * not followed: a 3xx is a failed attempt, so a receiver cannot send the delivery elsewhere.
 */
export async function sendWebhook(
  url: URL,
  headers: WebhookHeaders,
  body: string,
  options: WebhookSenderOptions,
): Promise<AttemptOutcome> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const local = options.allowLocalHttp && url.protocol === 'http:';
  let addresses: readonly string[];
  try {
    addresses = isIP(host) ? [host] : await (options.resolve ?? resolveAll)(host);
  } catch (error) {
    return { ok: false, error: `DNS: ${error instanceof Error ? error.message : String(error)}` };
  }
  const refused = local ? [] : addresses.filter((address) => !isPublicAddress(address));
  const [address] = addresses;
  if (address === undefined || refused.length > 0)
    return {
      ok: false,
      error: `refused: ${host} resolves to ${refused.join(', ') || 'nothing'}, not a public address`,
    };
  const pinned: LookupFunction = (_name, lookupOptions, callback) => {
    const family = isIP(address);
    if ((lookupOptions as { all?: boolean }).all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptOutcome>((resolve) => {
    const outgoing = send(
      url,
      {
        method: 'POST',
        lookup: pinned,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'serverless-newsletter-webhooks',
        },
        timeout: options.timeoutMs ?? 10_000,
      },
      (answer) => {
        const status = answer.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on('data', (chunk: Buffer) => {
          if (size < ERROR_BODY_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        answer.on('end', () => {
          if (status >= 200 && status < 300) return resolve({ ok: true, status });
          const text = Buffer.concat(chunks).toString('utf8').slice(0, ERROR_BODY_BYTES);
          resolve({
            ok: false,
            status,
            error:
              status >= 300 && status < 400
                ? `HTTP ${status}: redirects are not followed`
                : `HTTP ${status}${text ? `: ${text}` : ''}`,
          });
        });
        answer.on('error', (error) => resolve({ ok: false, status, error: error.message }));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer in time')));
    outgoing.on('error', (error) => resolve({ ok: false, error: error.message }));
    outgoing.end(body);
  });
}
