/**
 * Options every AWS client shares. Short timeouts turn an unreachable dependency into a quick
 * 503 instead of a Lambda timeout; the SDK's own retries still absorb brief throttling.
 */
export const CLIENT_OPTIONS = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
} as const;
