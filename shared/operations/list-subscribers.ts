import { type Subscriber, toSubscriber } from '../domain/subscriber.ts';
import type { Dependencies } from './dependencies.ts';

/** How many subscribers `subscribers` returns (interface part 8). */
export const SUBSCRIBERS_LIMIT = 20;

/** `subscribers`: the 20 most recently created, newest first, any status; one index Query. */
export async function listSubscribers(deps: Dependencies): Promise<Subscriber[]> {
  const records = await deps.store.recentSubscribers(SUBSCRIBERS_LIMIT);
  return records.map(toSubscriber);
}
