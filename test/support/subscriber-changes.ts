/**
 * Subscriber changes as the operations make them (read, decide, write conditionally, retry),
 * generated for property tests of what every subscriber write keeps: the list index
 * ([campaign.plan]) and the subscriber counts ([v2.paging-counts]).
 */
import fc from 'fast-check';
import { DynamoSubscriberDirectory } from '../../shared/adapters/store/dynamo-subscriber-directory.ts';
import type { SubscriberRecord, SubscriberStatus } from '../../shared/domain/subscriber.ts';
import type { CampaignWorld } from './campaign-world.ts';

export type Change =
  | { readonly kind: 'status'; readonly status: SubscriberStatus }
  | { readonly kind: 'ask'; readonly hours: number }
  | { readonly kind: 'lists'; readonly lists: number[] }
  | { readonly kind: 'move' }
  | { readonly kind: 'delete' };

/**
 * Changes of status, lists and deletions; with `more`, also asking to confirm again (a new
 * expiry) and moving to another address.
 */
export function subscriberChange(more = false): fc.Arbitrary<Change> {
  const base: fc.Arbitrary<Change>[] = [
    fc.constantFrom('C', 'S', 'U', 'B', 'P').map((status) => ({ kind: 'status' as const, status })),
    fc
      .array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 })
      .map((lists) => ({ kind: 'lists' as const, lists })),
    fc.constant({ kind: 'delete' as const }),
  ];
  if (!more) return fc.oneof(...base);
  return fc.oneof(
    ...base,
    fc.integer({ min: 1, max: 72 }).map((hours) => ({ kind: 'ask' as const, hours })),
    fc.constant({ kind: 'move' as const }),
  );
}

/** Where a move takes an address: the same, starting with the other of `a` and `b`. */
export const movedAddress = (email: string): string =>
  `${email.startsWith('a') ? 'b' : 'a'}${email.slice(1)}`;

/** Applies a change as the operations do: read, decide, write conditionally, retry. */
export async function applyChange(
  world: CampaignWorld,
  email: string,
  what: Change,
): Promise<void> {
  const directory = new DynamoSubscriberDirectory(world.table.client, world.table.name);
  for (;;) {
    const current = await world.store.getSubscriber(email);
    if (!current) return;
    if (what.kind === 'delete') {
      if (await world.store.deleteSubscriber(current)) return;
      continue;
    }
    if (what.kind === 'move') {
      const moved = movedAddress(email);
      // With a list more: a move that changes lists too changes the counts.
      const to = {
        ...current,
        email: moved,
        lists: [...new Set([...current.lists, 3])],
        version: current.version + 1,
      };
      if (await directory.move(current, to)) return;
      if (await world.store.getSubscriber(moved)) return;
      continue;
    }
    const { expires_at: _was, ...rest } = current;
    const next: SubscriberRecord =
      what.kind === 'ask'
        ? {
            ...rest,
            status: 'S',
            expires_at: Math.floor(Date.now() / 1000) + what.hours * 3600,
            version: current.version + 1,
          }
        : {
            ...(what.kind === 'status' && what.status === 'S' ? current : rest),
            ...(what.kind === 'status' ? { status: what.status } : { lists: what.lists }),
            version: current.version + 1,
          };
    if (await world.store.replaceSubscriber(next, current)) return;
  }
}
