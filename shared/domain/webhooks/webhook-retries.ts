/**
 * When a failed delivery is tried again ([webhooks.retries]): the Standard Webhooks
 * specification's suggested schedule, after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h, 14 h. The attempts span 41.6 hours, so a receiver down for a day still gets
 * every event once it is back.
 */
export const RETRY_DELAYS_SECONDS = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 50_400] as const;

/** How long an endpoint may fail without a success before it is disabled. */
export const DISABLE_AFTER_SECONDS = 86_400;

/**
 * When to try a delivery again after its `attempts`-th failed attempt, or undefined when it has
 * had them all (it stays in the log as failed, to replay).
 */
export function nextAttemptAt(attempts: number, failedAt: Date): Date | undefined {
  const delay = RETRY_DELAYS_SECONDS[attempts - 1];
  return delay === undefined ? undefined : new Date(failedAt.getTime() + delay * 1000);
}

/** What the endpoint's record keeps of its health. */
export interface EndpointHealth {
  readonly state: 'enabled' | 'disabled';
  /** Since when every delivery has failed; absent while the last one succeeded. */
  readonly failing_since?: string;
  readonly disabled_reason?: string;
}

/**
 * An endpoint's health after a delivery ([webhooks.disable]): a success clears the failing
 * time; a failure starts it, and one a day or more after it disables the endpoint, saying why.
 * A disabled endpoint gets no deliveries until an admin enables it again.
 */
export function afterDelivery(
  health: EndpointHealth,
  outcome: { readonly ok: boolean; readonly at: Date; readonly error?: string },
): EndpointHealth {
  if (health.state === 'disabled') return health;
  if (outcome.ok) return { state: 'enabled' };
  const since = health.failing_since ?? outcome.at.toISOString();
  const failing = (outcome.at.getTime() - Date.parse(since)) / 1000;
  if (failing >= DISABLE_AFTER_SECONDS)
    return {
      state: 'disabled',
      failing_since: since,
      disabled_reason: `every delivery failed for a day (since ${since}); last: ${outcome.error ?? 'failed'}`,
    };
  return { state: 'enabled', failing_since: since };
}
