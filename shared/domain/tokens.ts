import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, URL-safe; twice the 128 bits the decisions ask for. */
const TOKEN_BYTES = 32;

/** A freshly minted token: `raw` goes into a link once and is never stored, `hash` is stored. */
export interface MintedToken {
  readonly raw: string;
  readonly hash: string;
}

/** Hashes a token for storage and lookup. A fast hash suffices: the input has 256 random bits. */
export function hashToken(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/** Makes a new random token. */
export function mintToken(): MintedToken {
  const raw = randomBytes(TOKEN_BYTES).toString('base64url');
  return { raw, hash: hashToken(raw) };
}

/** Whether a presented raw token has the right shape before any lookup is spent on it. */
export function isWellFormedToken(raw: unknown): raw is string {
  return typeof raw === 'string' && /^[A-Za-z0-9_-]{43}$/.test(raw);
}

/** Compares two hashes in time independent of where they differ. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A subscriber's token list split at `now`: the live ones, and the hashes of the expired. */
export function splitExpiredTokens(
  tokens: Readonly<Record<string, number>>,
  now: Date,
): { live: Record<string, number>; expired: string[] } {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const live: Record<string, number> = {};
  const expired: string[] = [];
  for (const [hash, expires] of Object.entries(tokens)) {
    if (expires > nowSeconds) live[hash] = expires;
    else expired.push(hash);
  }
  return { live, expired };
}
