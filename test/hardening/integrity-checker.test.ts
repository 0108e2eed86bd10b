/**
 * The integrity checker every hardening suite ends with must itself find what it claims to:
 * a clean table passes, and each kind of damage is reported by name.
 */
import { describe, expect, it } from 'vitest';
import { type Item, integrityProblems } from './support/harness.ts';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

/** A subscriber item as the store writes it, with the tokens it lists. */
function subscriber(email: string, id: number, tokens: Record<string, number> = {}): Item {
  return { pk: `SUBSCRIBER#${email}`, sk: 'subscriber', email, id, tokens, status: 'S' };
}

function token(hash: string, email: string): Item {
  return { pk: `TOKEN#${hash}`, sk: 'token', email, purpose: 'confirm', expires_at: 1 };
}

const indexed = (...emails: string[]): Item[] => emails.map((email) => ({ email }));

describe('integrityProblems', () => {
  it('finds nothing wrong with a consistent table', () => {
    const items = [
      subscriber('ada@example.com', 1, { [HASH_A]: 1 }),
      token(HASH_A, 'ada@example.com'),
    ];
    expect(integrityProblems(items, indexed('ada@example.com'))).toEqual([]);
  });

  it('reports a hand-made orphan token and a stray index entry, both', () => {
    const items = [
      subscriber('ada@example.com', 1),
      // A token whose subscriber does not exist.
      token(HASH_B, 'ghost@example.com'),
    ];
    const problems = integrityProblems(items, indexed('ada@example.com', 'stray@example.com'));
    expect(problems).toEqual([
      `token ${HASH_B.slice(0, 8)} of ghost@example.com: no subscriber`,
      'index entry stray@example.com: no subscriber',
    ]);
  });

  it('reports a token the subscriber does not list, a listed token that is missing, and a live confirm token not among its tokens', () => {
    const items = [
      { ...subscriber('bob@example.com', 2, { [HASH_A]: 1 }), confirm_token: HASH_B },
      token(HASH_B, 'bob@example.com'),
    ];
    expect(integrityProblems(items, indexed('bob@example.com')).sort()).toEqual(
      [
        `subscriber bob@example.com: listed token ${HASH_A.slice(0, 8)} missing`,
        `token ${HASH_B.slice(0, 8)} of bob@example.com: not listed by the subscriber`,
        'subscriber bob@example.com: confirm token not among its tokens',
      ].sort(),
    );
  });

  it('reports a duplicate id, a subscriber missing from the index and one listed twice', () => {
    const items = [subscriber('a@example.com', 7), subscriber('b@example.com', 7)];
    expect(integrityProblems(items, indexed('a@example.com', 'a@example.com')).sort()).toEqual(
      [
        'subscriber b@example.com: id 7 used twice',
        'index lists a@example.com 2 times',
        'subscriber b@example.com: missing from the index',
      ].sort(),
    );
  });
});
