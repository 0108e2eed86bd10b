import type { CampaignStore } from '../../adapters/store/campaign-store-port.ts';
import {
  type CampaignLinkToken,
  campaignLinkHash,
  chunkLinkEntry,
  parseCampaignLink,
} from '../../domain/campaign/campaign-link.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import { sameHash } from '../../domain/tokens.ts';
import type { Dependencies } from '../dependencies.ts';

/** The subscriber a campaign mail's unsubscribe link belongs to, and the link itself. */
export interface CampaignLinkHolder {
  readonly subscriber: SubscriberRecord;
  readonly token: CampaignLinkToken;
}

/**
 * Finds the subscriber behind a campaign mail's unsubscribe link ([campaign.unsubscribe-link]),
 * or nothing: the token must have the campaign shape, its recipient record or its chunk must
 * hold the hash of its secret (compared in constant time) and the link must not have expired; the id must
 * still belong to a subscriber (a deleted one's links die with it, also when the address
 * subscribes again: that is another subscriber, with another id).
 */
export async function campaignLinkHolder(
  deps: Pick<Dependencies, 'store' | 'now'> & { readonly campaigns: CampaignStore },
  raw: unknown,
): Promise<CampaignLinkHolder | undefined> {
  const token = parseCampaignLink(raw);
  if (!token) return undefined;
  const expiresAt = await linkExpiry(deps.campaigns, token);
  if (expiresAt === undefined || expiresAt * 1000 <= deps.now().getTime()) return undefined;
  const email = (await deps.campaigns.emailsOf([token.subscriberId])).get(token.subscriberId);
  if (!email) return undefined;
  const subscriber = await deps.store.getSubscriber(email);
  if (!subscriber || subscriber.id !== token.subscriberId) return undefined;
  return { subscriber, token };
}

/**
 * When a link dies (epoch s), or undefined when no record of it is kept: its hash is on the
 * recipient record once the mail is recorded, and on the chunk it went out under from before
 * the mail left ([campaign.every-copy-link]). Every stored hash is compared in constant time,
 * all of them, so the time taken does not tell which matched.
 */
async function linkExpiry(
  campaigns: CampaignStore,
  token: CampaignLinkToken,
): Promise<number | undefined> {
  const hash = campaignLinkHash(token);
  // A link without its chunk is from before chunks: its record is in the old partition.
  const recipient = await campaigns.getRecipient(
    { newsletterId: token.newsletterId, legacy: token.chunk === undefined },
    token.subscriberId,
  );
  const known = [
    ...(recipient?.token_hashes ?? []),
    ...(recipient?.token_hash ? [recipient.token_hash] : []),
  ];
  if (known.filter((stored) => sameHash(stored, hash)).length > 0)
    return recipient?.link_expires_at ?? 0;
  if (!token.chunk) return undefined;
  const chunk = await campaigns.chunkLinks(token.newsletterId, token.chunk.run, token.chunk.first);
  if (!chunk) return undefined;
  const entry = chunkLinkEntry(token.subscriberId, hash);
  const matches = chunk.entries.filter((stored) => sameHash(stored, entry));
  return matches.length > 0 ? chunk.linkExpiresAt : undefined;
}
