import { hashToken, mintToken } from '../tokens.ts';

/**
 * The unsubscribe link of a campaign mail ([campaign.unsubscribe-link]):
 * `<issue>.<subscriber>.<run>.<chunk>.<secret>`, where the secret has 256 random bits and
 * `<run>.<chunk>` names the planned chunk the mail went out under (its first subscriber id).
 * The worker that claims the chunk writes a hash of every secret it minted there before any
 * mail goes out, and the recipient record gets the full hash once the mail is out; the secret
 * itself is never stored. Links of mails sent before chunks existed have no `<run>.<chunk>`:
 * their hash is on the recipient record. A link dies with its records, and is refused once the
 * subscriber is deleted: the id no longer belongs to anyone.
 */
export interface CampaignLinkToken {
  readonly newsletterId: number;
  readonly subscriberId: number;
  /** The chunk the mail went out under; absent on links from before chunks. */
  readonly chunk?: { readonly run: number; readonly first: number };
  /** The raw secret (43 base64url characters). */
  readonly secret: string;
}

const ID = '([1-9][0-9]{0,14})';
const SECRET = '([A-Za-z0-9_-]{43})';
const SHAPE = new RegExp(`^${ID}\\.${ID}\\.(?:${ID}\\.${ID}\\.)?${SECRET}$`);

/** A fresh link token for a recipient in a chunk: the raw token for the mail and its hash. */
export function mintCampaignLink(
  newsletterId: number,
  subscriberId: number,
  chunk: { readonly run: number; readonly first: number },
): { readonly raw: string; readonly hash: string } {
  const secret = mintToken();
  return {
    raw: `${newsletterId}.${subscriberId}.${chunk.run}.${chunk.first}.${secret.raw}`,
    hash: secret.hash,
  };
}

/** Reads a presented token as a campaign link token; undefined when it has another shape. */
export function parseCampaignLink(raw: unknown): CampaignLinkToken | undefined {
  if (typeof raw !== 'string') return undefined;
  const match = SHAPE.exec(raw);
  if (!match) return undefined;
  const [, newsletter, subscriber, run, first, secret] = match;
  return {
    newsletterId: Number(newsletter),
    subscriberId: Number(subscriber),
    ...(run && first ? { chunk: { run: Number(run), first: Number(first) } } : {}),
    secret: secret ?? '',
  };
}

/** The stored hash of a campaign link token's secret (on the recipient record). */
export function campaignLinkHash(token: CampaignLinkToken): string {
  return hashToken(token.secret);
}

/**
 * A link's entry in its chunk's hashes: the subscriber id and 128 bits of the secret's hash
 * (as base64url), enough against a guess and small enough that a chunk of a hundred mails
 * costs three write units to claim.
 */
export function chunkLinkEntry(subscriberId: number, hash: string): string {
  return `${subscriberId}.${Buffer.from(hash.slice(0, 32), 'hex').toString('base64url')}`;
}
