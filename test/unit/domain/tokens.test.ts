import { describe, expect, it } from 'vitest';
import {
  hashToken,
  isWellFormedToken,
  mintToken,
  sameHash,
  splitExpiredTokens,
} from '../../../shared/domain/tokens.ts';

describe('tokens', () => {
  it('are stored as their SHA-256, in hex', () => {
    // The FIPS 180-2 test vector for "abc".
    expect(hashToken('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    const minted = mintToken();
    expect(minted.hash).toBe(hashToken(minted.raw));
    expect(isWellFormedToken(minted.raw)).toBe(true);
  });

  it('are well-formed only as 43 URL-safe base64 characters', () => {
    const raw = `${'A'.repeat(20)}${'z09_-'.repeat(4)}abc`;
    expect(raw).toHaveLength(43);
    expect(isWellFormedToken(raw)).toBe(true);
    for (const bad of [
      raw.slice(1),
      `${raw}A`,
      `!${raw.slice(1)}`,
      `${raw.slice(1)}!`,
      `${raw.slice(0, 20)}+${raw.slice(21)}`,
      '-',
      '!'.repeat(43),
      '',
      undefined,
      null,
      43,
      [raw],
    ]) {
      expect(isWellFormedToken(bad)).toBe(false);
    }
  });

  it('hashes compare equal only when identical', () => {
    const hash = hashToken('abc');
    expect(sameHash(hash, hashToken('abc'))).toBe(true);
    expect(sameHash(hash, hashToken('abd'))).toBe(false);
    expect(sameHash(hash, hash.slice(0, -1))).toBe(false);
    expect(sameHash(hash, `${hash}0`)).toBe(false);
    expect(sameHash('', '')).toBe(true);
  });

  it('split at now: a token expiring this second or before is expired, a later one live', () => {
    const now = new Date('2026-11-22T10:00:00.900Z');
    const nowSeconds = Date.parse('2026-11-22T10:00:00.000Z') / 1000;
    expect(
      splitExpiredTokens(
        { old: nowSeconds - 60, edge: nowSeconds, next: nowSeconds + 1, far: nowSeconds + 86_400 },
        now,
      ),
    ).toEqual({
      live: { next: nowSeconds + 1, far: nowSeconds + 86_400 },
      expired: ['old', 'edge'],
    });
    expect(splitExpiredTokens({}, now)).toEqual({ live: {}, expired: [] });
  });
});
