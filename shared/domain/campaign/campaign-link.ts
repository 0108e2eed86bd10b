import { hashToken, mintToken } from '../tokens.ts';

/**
 * The unsubscribe link of a campaign mail ([campaign.unsubscribe-link]): `<issue>.<subscriber>.
 * <secret>`, where the secret has 256 random bits. The ids say which recipient record holds the
 * secret's hash (the claim that sends the mail writes it there); the secret itself is never
 * stored. Minting needs no write of its own, so a campaign pays nothing extra per recipient for
 * its links, and a link dies with its recipient record (and is refused once the subscriber is
 * deleted: the id no longer belongs to anyone).
 */
export interface CampaignLinkToken {
  readonly newsletterId: number;
  readonly subscriberId: number;
  /** The raw secret (43 base64url characters). */
  readonly secret: string;
}

const SHAPE = /^([1-9][0-9]{0,14})\.([1-9][0-9]{0,14})\.([A-Za-z0-9_-]{43})$/;

/** A fresh link token for a recipient: the raw token for the mail and the hash to store. */
export function mintCampaignLink(
  newsletterId: number,
  subscriberId: number,
): { readonly raw: string; readonly hash: string } {
  const secret = mintToken();
  return { raw: `${newsletterId}.${subscriberId}.${secret.raw}`, hash: secret.hash };
}

/** Reads a presented token as a campaign link token; undefined when it has another shape. */
export function parseCampaignLink(raw: unknown): CampaignLinkToken | undefined {
  if (typeof raw !== 'string') return undefined;
  const match = SHAPE.exec(raw);
  if (!match) return undefined;
  const [, newsletter, subscriber, secret] = match;
  return {
    newsletterId: Number(newsletter),
    subscriberId: Number(subscriber),
    secret: secret ?? '',
  };
}

/** The stored hash of a campaign link token's secret. */
export function campaignLinkHash(token: CampaignLinkToken): string {
  return hashToken(token.secret);
}
