import { describe, expect, it } from 'vitest';
import {
  isNotGiven,
  normaliseParameters,
} from '../../../shared/domain/parameters/normalise-parameters.ts';

const fold = (raw: Record<string, unknown>) => normaliseParameters(raw);
/** The profile as a plain object (the fold builds it without a prototype). */
const profileOf = (raw: Record<string, unknown>) => {
  const { profile } = fold(raw);
  return profile === undefined ? undefined : { ...profile };
};

describe('not given', () => {
  it('[params.null] null and "" are not given, everything else is', () => {
    expect(isNotGiven(undefined)).toBe(true);
    expect(isNotGiven(null)).toBe(true);
    expect(isNotGiven('')).toBe(true);
    expect(isNotGiven(0)).toBe(false);
    expect(isNotGiven(false)).toBe(false);
    expect(isNotGiven(' ')).toBe(false);
  });

  it('[params.null] null and "" plain fields are dropped, other values kept', () => {
    expect(fold({ name: null, surname: '', gender: 'f', status: 0 }).fields).toEqual({
      gender: 'f',
      status: 0,
    });
    expect(Object.keys(fold({ name: null, surname: '' }).fields)).toEqual([]);
  });

  it('[params.null] lists, profile and a problem are absent when not given', () => {
    const folded = fold({ email: 'a@example.com', lists: null, 'lists[]': '', profile: null });
    expect(Object.keys(folded)).toEqual(['fields']);
    expect(folded.fields).toEqual({ email: 'a@example.com' });
  });

  it('[params.empty] a profile value "" is not given, but the profile is', () => {
    expect(profileOf({ profile_1: '', 'profile[2]': 'x' })).toEqual({ '2': 'x' });
    expect(profileOf({ profile_1: '' })).toEqual({});
    expect(profileOf({ profile: { '1': '', '2': null, '3': 'y' } })).toEqual({ '3': 'y' });
  });
});

describe('lists', () => {
  it('[params.lists-merged] an empty string among form values is ignored', () => {
    expect(fold({ 'lists[]': ['1', '', '3'] }).lists).toEqual(['1', '3']);
    expect(fold({ lists: ['', null] }).lists).toEqual([]);
  });

  it('[params.lists-merged] a single string value is one id, not split into characters', () => {
    expect(fold({ lists: '12' }).lists).toEqual(['12']);
    expect(fold({ lists: 7 }).lists).toEqual([7]);
    expect(fold({ lists: [4, 1] }).lists).toEqual([4, 1]);
  });

  it('[params.php-arrays] a JSON object with numeric keys is a list in index order', () => {
    expect(fold({ lists: { '0': 1, '1': 3 } }).lists).toEqual([1, 3]);
    expect(fold({ lists: { '10': 5, '2': 4 } }).lists).toEqual([4, 5]);
    // Keys that are not array indexes ("01") still order by their number.
    expect(fold({ lists: { '3': 'c', '02': 'b', '001': 'a' } }).lists).toEqual(['a', 'b', 'c']);
  });

  it('[params.php-arrays] an object with any non-numeric key, or none, is not a PHP array', () => {
    expect(fold({ lists: { a: 1 } }).lists).toEqual([{ a: 1 }]);
    expect(fold({ lists: { '0': 1, a: 2 } }).lists).toEqual([{ '0': 1, a: 2 }]);
    expect(fold({ lists: { a1: 1 } }).lists).toEqual([{ a1: 1 }]);
    expect(fold({ lists: { '1a': 1 } }).lists).toEqual([{ '1a': 1 }]);
    expect(fold({ lists: {} }).lists).toEqual([{}]);
  });

  it('[params.php-arrays] lists[<n>] are ordered by index, other spellings after them in their order', () => {
    expect(fold({ 'lists[1]': '3', 'lists[0]': '1' }).lists).toEqual(['1', '3']);
    expect(fold({ 'lists[12]': '9', 'lists[2]': '8' }).lists).toEqual(['8', '9']);
    expect(fold({ lists: 'a', 'lists[]': 'b', 'lists[1]': 'd', 'lists[0]': 'c' }).lists).toEqual([
      'c',
      'd',
      'a',
      'b',
    ]);
    expect(fold({ 'lists[]': 'b', lists: 'a' }).lists).toEqual(['b', 'a']);
    expect(fold({ lists: 'a', 'lists[]': 'b', 'lists[0]': 'c' }).lists).toEqual(['c', 'a', 'b']);
  });
});

describe('profile', () => {
  it('[params.empty] an empty array (PHP’s empty associative array) is an empty profile', () => {
    const folded = fold({ profile: [] });
    expect(folded.problem).toBeUndefined();
    expect(profileOf({ profile: [] })).toEqual({});
  });

  it('[params.error-names-parameter] a profile that is not an object is a problem naming it', () => {
    for (const profile of [['x'], 'London', 7]) {
      expect(fold({ profile }).problem).toBe('profile must be an object of field ids to values');
    }
    expect('problem' in fold({ profile: { '1': 'x' } })).toBe(false);
  });

  it('[params.profile-merged] profile[x], profile_x and a profile object fill one profile', () => {
    expect(profileOf({ 'profile[1]': 'a', profile_2: 'b', profile: { '3': 'c' } })).toEqual({
      '1': 'a',
      '2': 'b',
      '3': 'c',
    });
    expect(fold({ 'profile[1]': 'a' }).fields).toEqual({});
  });
});
