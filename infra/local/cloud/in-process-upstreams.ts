/**
 * Stand-ins that run in the same process as the AWS endpoint (the local SES) take the calls it
 * forwards as a function call instead of one more loopback HTTP request. The endpoint has
 * checked the signature and the caller's permissions by then; the hop it saves was a socket
 * write each way, the largest single cost of the local cloud in a campaign bench (a loopback
 * write costs about 0.2 ms of CPU on these machines). A stand-in that stops takes its entry
 * away, so its address refuses connections as before.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** A call the endpoint forwards, its body already read. */
export interface ForwardedRequest {
  readonly method: string;
  /** Path and query, as the caller sent them. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Answers a forwarded call on `response` (the caller's own); never rejects. */
export type InProcessUpstream = (
  request: ForwardedRequest,
  response: ServerResponse,
) => Promise<void>;

const byOrigin = new Map<string, InProcessUpstream>();

/** Serves calls forwarded to `url` in this process until the returned function is called. */
export function serveInProcess(url: string, upstream: InProcessUpstream): () => void {
  const { origin } = new URL(url);
  byOrigin.set(origin, upstream);
  return () => {
    if (byOrigin.get(origin) === upstream) byOrigin.delete(origin);
  };
}

/** The stand-in serving `url` in this process, if one does. */
export function inProcessUpstream(url: string): InProcessUpstream | undefined {
  return byOrigin.get(new URL(url).origin);
}
