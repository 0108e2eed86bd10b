import { describe, expect, it } from 'vitest';
import {
  type BlockCounts,
  countChanges,
  currentHour,
  expiryHour,
  matchingIn,
  pageStart,
  totalMatching,
} from '../../../shared/domain/subscriber-counts.ts';

const person = (fields: {
  id?: number;
  status?: 'S' | 'C' | 'U' | 'B' | 'P';
  lists?: number[];
  expires_at?: number;
}) => ({ id: 1234, status: 'C' as const, lists: [1, 2], ...fields });

describe('[v2.paging-counts] what a subscriber change adds to the counts', () => {
  it('a new subscriber adds 1 to their status and to their status on each list, in their block', () => {
    expect(countChanges(undefined, person({}))).toEqual([
      { cell: { kind: 'kept', block: 1 }, add: { sC: 1, l1sC: 1, l2sC: 1 } },
    ]);
  });

  it('a deletion takes away what the subscriber added', () => {
    expect(countChanges(person({ status: 'U', lists: [3] }), undefined)).toEqual([
      { cell: { kind: 'kept', block: 1 }, add: { sU: -1, l3sU: -1 } },
    ]);
  });

  it('a change of status or lists moves only what changed; any other change writes nothing', () => {
    expect(countChanges(person({}), person({ lists: [2, 3] }))).toEqual([
      { cell: { kind: 'kept', block: 1 }, add: { l1sC: -1, l3sC: 1 } },
    ]);
    expect(countChanges(person({}), person({ status: 'U' }))).toEqual([
      {
        cell: { kind: 'kept', block: 1 },
        add: { sC: -1, l1sC: -1, l2sC: -1, sU: 1, l1sU: 1, l2sU: 1 },
      },
    ]);
    expect(countChanges(person({}), person({}))).toEqual([]);
  });

  it('someone who may expire is counted by the hour of their expiry, and moves with it', () => {
    const asked = person({ status: 'S', lists: [2], expires_at: 7200 });
    expect(countChanges(undefined, asked)).toEqual([
      { cell: { kind: 'expiring', block: 1, hour: 2 }, add: { n: 1, l2: 1 } },
    ]);
    expect(countChanges(asked, { ...asked, expires_at: 7201 })).toEqual([
      { cell: { kind: 'expiring', block: 1, hour: 2 }, add: { n: -1, l2: -1 } },
      { cell: { kind: 'expiring', block: 1, hour: 3 }, add: { n: 1, l2: 1 } },
    ]);
    const { expires_at: _gone, ...confirmed } = { ...asked, status: 'C' as const };
    expect(countChanges(asked, confirmed)).toEqual([
      { cell: { kind: 'expiring', block: 1, hour: 2 }, add: { n: -1, l2: -1 } },
      { cell: { kind: 'kept', block: 1 }, add: { sC: 1, l2sC: 1 } },
    ]);
  });

  it('a list named twice counts once', () => {
    expect(countChanges(undefined, person({ lists: [4, 4] }))).toEqual([
      { cell: { kind: 'kept', block: 1 }, add: { sC: 1, l4sC: 1 } },
    ]);
  });
});

describe('[v2.paging-counts] reading the counts', () => {
  const block: BlockCounts = {
    kept: { sC: 5, sU: 2, sS: 1, l1sC: 3, l1sU: 1, l1sS: 1 },
    expiring: [
      { n: 2, l1: 1 },
      { n: 1, l1: 0 },
    ],
  };

  it('adds the statuses, the lists and the expiring cells a filter matches', () => {
    expect(matchingIn(block, {})).toBe(11);
    expect(matchingIn(block, { status: 'C' })).toBe(5);
    expect(matchingIn(block, { status: 'S' })).toBe(4);
    expect(matchingIn(block, { list: 1 })).toBe(6);
    expect(matchingIn(block, { list: 1, status: 'S' })).toBe(2);
    expect(matchingIn(block, { list: 9 })).toBe(0);
    expect(
      totalMatching(
        new Map([
          [0, block],
          [4, block],
        ]),
        { status: 'U' },
      ),
    ).toBe(4);
  });

  it('an expiry counts until the end of the hour it falls in', () => {
    const expiresAt = 10 * 3600 + 1;
    expect(expiryHour(expiresAt)).toBe(11);
    expect(currentHour(new Date((10 * 3600 + 1800) * 1000))).toBe(11);
    expect(currentHour(new Date(11 * 3600 * 1000))).toBe(12);
  });

  it('finds the block a page starts in and how many of it to skip, in either order', () => {
    const matches = new Map([
      [0, 3],
      [2, 0],
      [5, 4],
    ]);
    expect(pageStart(matches, 0, 'asc')).toEqual({ block: 0, skip: 0 });
    expect(pageStart(matches, 3, 'asc')).toEqual({ block: 5, skip: 0 });
    expect(pageStart(matches, 6, 'asc')).toEqual({ block: 5, skip: 3 });
    expect(pageStart(matches, 7, 'asc')).toBeUndefined();
    expect(pageStart(matches, 0, 'desc')).toEqual({ block: 5, skip: 0 });
    expect(pageStart(matches, 5, 'desc')).toEqual({ block: 0, skip: 1 });
  });
});
