import { describe, expect, it } from 'vitest';
import { nestBracketedFields } from '../../../functions/http/nested-fields.ts';
import type { RequestParameters } from '../../../functions/http/parse-request.ts';

/** Parameters as parseRequest hands them over: a bag without a prototype. */
const bag = (entries: Record<string, unknown>): RequestParameters =>
  Object.assign(Object.create(null) as RequestParameters, entries);

/** The result as plain JSON, so prototype-less objects compare by content. */
const nested = (entries: Record<string, unknown>): unknown =>
  JSON.parse(JSON.stringify(nestBracketedFields(bag(entries))));

describe('[v2.form-fields] fields written the PHP way', () => {
  it('nests objects in arrays as jQuery sends them and WordPress reads them', () => {
    expect(
      nested({
        email: 'ada@example.com',
        'extra_fields[0][id]': 'city',
        'extra_fields[0][value]': 'Rome',
        'extra_fields[1][id]': 'company',
        'extra_fields[1][value]': 'ACME',
      }),
    ).toEqual({
      email: 'ada@example.com',
      extra_fields: [
        { id: 'city', value: 'Rome' },
        { id: 'company', value: 'ACME' },
      ],
    });
  });

  it('reads `lists[]` repeated, `lists[0][id]` and a single `lists[]` as arrays', () => {
    expect(nested({ 'lists[]': ['1', '2'] })).toEqual({ lists: ['1', '2'] });
    expect(nested({ 'lists[]': '3' })).toEqual({ lists: ['3'] });
    expect(nested({ 'lists[0][id]': '1', 'lists[1][id]': '4' })).toEqual({
      lists: [{ id: '1' }, { id: '4' }],
    });
  });

  it('leaves parameters without brackets as they are, and a plain name given too wins', () => {
    const params = bag({ email: 'ada@example.com', name: 'Ada' });
    expect(nestBracketedFields(params)).toBe(params);
    expect(nested({ lists: 'plain', 'lists[]': '1' })).toEqual({ lists: 'plain' });
  });

  it('keeps values that are not text as they are, unnested', () => {
    expect(nested({ 'profile[1]': 7 })).toEqual({ 'profile[1]': 7 });
  });

  it('nests at most 3 levels: deeper brackets stay one key', () => {
    expect(nested({ 'a[b][c][d][e]': 'x' })).toEqual({ a: { b: { c: { d: { '[e]': 'x' } } } } });
  });

  it('makes an index above 100 an object key, not a sparse array of that length', () => {
    expect(nested({ 'ids[101]': 'x' })).toEqual({ ids: { '101': 'x' } });
    expect(nested({ 'ids[5]': 'x' })).toEqual({ ids: ['x'] });
  });

  it('reads at most 300 fields', () => {
    const many = Object.fromEntries(
      Array.from({ length: 400 }, (_, index) => [`f[${index}]`, String(index)]),
    );
    const out = nestBracketedFields(bag(many)) as { f: Record<string, string> };
    expect(Object.keys(out.f)).toHaveLength(300);
  });

  it('makes `__proto__[x]` and `constructor[prototype]` plain names, polluting nothing', () => {
    const out = nestBracketedFields(
      bag({ '__proto__[polluted]': 'yes', 'constructor[prototype][polluted]': 'yes' }),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBeNull();
    expect(JSON.parse(JSON.stringify(out))).toEqual({
      __proto__: { polluted: 'yes' },
      constructor: { prototype: { polluted: 'yes' } },
    });
  });
});
