/**
 * Options every AWS client shares. Short timeouts turn an unreachable dependency into a quick
 * 503 instead of a Lambda timeout; the SDK's own retries still absorb brief throttling.
 */
export const CLIENT_OPTIONS = {
  maxAttempts: 3,
  // Since @smithy/node-http-handler 4.x a requestTimeout alone only logs a warning when it
  // passes; throwOnRequestTimeout makes it end the call, as the 3 s here mean.
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
} as const;

/**
 * DynamoDB for the campaign functions: no caller waits on them, and a campaign is the burst of
 * writes on-demand capacity throttles, so a throttled call gets the SDK's backoff for up to 10
 * attempts (tens of seconds) rather than failing the invocation, whose message would come back
 * only after the queue's visibility timeout.
 */
export const BACKGROUND_DYNAMODB_OPTIONS = { ...CLIENT_OPTIONS, maxAttempts: 10 } as const;
