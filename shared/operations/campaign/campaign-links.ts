import type { CampaignStore } from '../../adapters/store/campaign-store-port.ts';
import {
  type CampaignLinkToken,
  campaignLinkHash,
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
 * or nothing: the token must have the campaign shape, its recipient record must hold the hash
 * of its secret (compared in constant time) and the link must not have expired; the id must
 * still belong to a subscriber (a deleted one's links die with it, also when the address
 * subscribes again: that is another subscriber, with another id).
 */
export async function campaignLinkHolder(
  deps: Pick<Dependencies, 'store' | 'now'> & { readonly campaigns: CampaignStore },
  raw: unknown,
): Promise<CampaignLinkHolder | undefined> {
  const token = parseCampaignLink(raw);
  if (!token) return undefined;
  const recipient = await deps.campaigns.getRecipient(token.newsletterId, token.subscriberId);
  if (!recipient) return undefined;
  // Every copy's link ([campaign.every-copy-link]): each is compared in constant time, all of
  // them, so the time taken does not tell which matched.
  const hash = campaignLinkHash(token);
  const known = [
    ...(recipient.token_hashes ?? []),
    ...(recipient.token_hash ? [recipient.token_hash] : []),
  ];
  const matches = known.filter((stored) => sameHash(stored, hash));
  if (matches.length === 0) return undefined;
  if ((recipient.link_expires_at ?? 0) * 1000 <= deps.now().getTime()) return undefined;
  const email = (await deps.campaigns.emailsOf([token.subscriberId])).get(token.subscriberId);
  if (!email) return undefined;
  const subscriber = await deps.store.getSubscriber(email);
  if (!subscriber || subscriber.id !== token.subscriberId) return undefined;
  return { subscriber, token };
}
