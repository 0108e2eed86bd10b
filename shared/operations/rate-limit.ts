import { createHash } from 'node:crypto';
import type { Store } from '../adapters/store/store-port.ts';
import type { Settings } from '../domain/settings-schema.ts';

/**
 * Fixed-window limit of keyless subscribe calls per client IP, counted in DynamoDB with a TTL
 * so counters clean themselves up and every Lambda container shares them. The IP is stored
 * only as a hash. Returns true when the call may proceed.
 */
export async function withinRateLimit(
  store: Store,
  settings: Settings,
  clientIp: string,
  now: Date,
): Promise<boolean> {
  const { max_requests: limit, window_minutes: minutes } = settings.public_rate_limit;
  if (limit === 0) return true;
  const windowMs = minutes * 60_000;
  const window = Math.floor(now.getTime() / windowMs);
  const ipHash = createHash('sha256').update(clientIp).digest('hex').slice(0, 32);
  const expiresAt = Math.ceil(((window + 1) * windowMs) / 1000) + 60;
  return store.countRequest(`ip#${ipHash}#${minutes}#${window}`, limit, expiresAt);
}
