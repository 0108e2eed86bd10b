import { type NewsletterError, unavailable } from '../domain/errors.ts';
import type { Logger } from './dependencies.ts';

/** What an attempt returns when its conditional write lost a race: read again and retry. */
export const CONFLICT: unique symbol = Symbol('conflict');

/** How many times a write that lost a race is recomputed from a fresh read. */
export const MAX_ATTEMPTS = 12;

/** Waits a little, more on each attempt, with jitter so racing writers spread out. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(200, 5 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The read–decide–write loop of every change to a subscriber. `attempt` reads what it needs,
 * decides, and makes its write conditional on what it read; it returns its result, or CONFLICT
 * when the condition failed because someone else wrote first. Then it runs again on a fresh
 * read, after a jittered backoff, so of racing callers exactly one commits each version. After
 * MAX_ATTEMPTS lost races the caller gets the 503 error value.
 */
export async function retryOnConflict<T>(
  operation: string,
  log: Logger,
  attempt: () => Promise<T | typeof CONFLICT>,
): Promise<T | NewsletterError> {
  for (let round = 0; round < MAX_ATTEMPTS; round += 1) {
    const result = await attempt();
    if (result !== CONFLICT) return result;
    await backoff(round);
  }
  log.warn('contention', { operation, attempts: MAX_ATTEMPTS });
  return unavailable();
}
