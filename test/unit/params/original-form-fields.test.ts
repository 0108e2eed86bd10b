/**
 * The original plugin's subscription form names, read as ours. The names come from the
 * plugin's form code (its `[newsletter_form]`, minimal and custom forms): `ne`, `nn`, `ns`,
 * `nx`, `nl[]`, `np<N>`, `ny`, plus hidden `nlang`, `nr`, `optin`, `ncu`.
 */
import { describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import { parseSubscribeParameters } from '../../../shared/domain/parameters/parse-parameters.ts';
import { testSettings } from '../../support/fixtures.ts';

const settings = testSettings({ lists: [1, 2, 3, 4].map((id) => ({ id, name: `List ${id}` })) });
const subscribe = (raw: Record<string, unknown>) => parseSubscribeParameters(raw, settings);
const failure = (result: unknown) =>
  isNewsletterError(result) ? { code: result.code, message: result.message } : result;

describe('[params.original-form-fields] the original form names', () => {
  it('read ne, nn, ns, nx, nl[], np<N> and ny as email, name, surname, gender, lists, profile and privacy', () => {
    expect(
      subscribe({
        ne: ' Ada@Example.com ',
        nn: 'Ada',
        ns: 'Lovelace',
        nx: 'F',
        'nl[]': ['1', '4'],
        np1: 'London',
        ny: 'on',
        nlang: 'en',
        nr: 'widget',
        optin: 'single',
        ncu: 'https://evil.example/',
      }),
    ).toEqual({
      email: 'ada@example.com',
      name: 'Ada',
      surname: 'Lovelace',
      gender: 'f',
      lists: [1, 4],
      profile: { '1': 'London' },
      send_emails: true,
      privacy: true,
    });
  });

  it('take lists as nl=1|3, nl[0]=1&nl[1]=3 and a single nl[]', () => {
    expect(subscribe({ ne: 'a@example.com', nl: '1|3' })).toMatchObject({ lists: [1, 3] });
    expect(subscribe({ ne: 'a@example.com', 'nl[0]': '1', 'nl[1]': '3' })).toMatchObject({
      lists: [1, 3],
    });
    expect(subscribe({ ne: 'a@example.com', 'nl[]': '2' })).toMatchObject({ lists: [2] });
    // An unticked placeholder is not a list.
    expect(subscribe({ ne: 'a@example.com', 'nl[]': '' })).not.toHaveProperty('lists');
  });

  it('refuse a field given both ways with a 400 naming both, even with equal values', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ne: 'a@example.com', email: 'a@example.com' }, 'ne and email'],
      [{ ne: 'a@example.com', nn: 'A', name: 'A' }, 'nn and name'],
      [{ ne: 'a@example.com', ns: 'B', surname: 'C' }, 'ns and surname'],
      [{ ne: 'a@example.com', nx: 'f', gender: 'f' }, 'nx and gender'],
      [{ ne: 'a@example.com', ny: 'on', privacy: 'on' }, 'ny and privacy'],
      [{ ne: 'a@example.com', 'nl[]': '1', lists: [1] }, 'nl[] and lists'],
      [{ ne: 'a@example.com', nl: '1', 'lists[]': '2' }, 'nl and lists[]'],
      [{ ne: 'a@example.com', np1: 'x', profile_1: 'x' }, 'np1 and profile_1'],
      [{ ne: 'a@example.com', np1: 'x', 'profile[1]': 'y' }, 'np1 and profile_1'],
      [{ ne: 'a@example.com', np1: 'x', profile: { '1': 'y' } }, 'np1 and profile_1'],
    ];
    for (const [raw, names] of cases) {
      expect(failure(subscribe(raw))).toEqual({
        code: 'invalid_parameter',
        message: `${names} are the same parameter; send only one of them`,
      });
    }
    // An empty twin is "not given" ([params.empty]): no conflict.
    expect(subscribe({ ne: 'a@example.com', email: '' })).toMatchObject({
      email: 'a@example.com',
    });
  });

  it('[params.empty] an alias that is empty, null or only unticked placeholders is not given: no conflict', () => {
    expect(subscribe({ ne: '', email: 'a@example.com' })).toMatchObject({ email: 'a@example.com' });
    expect(subscribe({ email: 'a@example.com', nn: null, name: 'Ada' })).toMatchObject({
      name: 'Ada',
    });
    expect(subscribe({ email: 'a@example.com', 'nl[]': ['', ''], lists: ['1'] })).toMatchObject({
      lists: [1],
    });
    expect(subscribe({ email: 'a@example.com', np1: '', profile_1: 'London' })).toMatchObject({
      profile: { '1': 'London' },
    });
    // One ticked box among placeholders is given.
    expect(subscribe({ email: 'a@example.com', 'nl[]': ['', '4'] })).toMatchObject({ lists: [4] });
    expect(failure(subscribe({ email: 'a@example.com', 'nl[]': ['', '4'], lists: [1] }))).toEqual({
      code: 'invalid_parameter',
      message: 'nl[] and lists are the same parameter; send only one of them',
    });
  });

  it('take list ids sent as JSON numbers, and np<N> beside a null profile', () => {
    expect(subscribe({ ne: 'a@example.com', 'nl[]': [4, 1] })).toMatchObject({ lists: [1, 4] });
    expect(subscribe({ ne: 'a@example.com', nl: 3 })).toMatchObject({ lists: [3] });
    expect(subscribe({ ne: 'a@example.com', np1: 'London', profile: null })).toMatchObject({
      profile: { '1': 'London' },
    });
  });

  it('keep our own rules: an unknown np<N> is ignored and named, a bad gender refused', () => {
    expect(subscribe({ ne: 'a@example.com', np7: 'x' })).toMatchObject({
      ignored_profile_fields: ['profile_7'],
    });
    expect(failure(subscribe({ ne: 'a@example.com', nx: 'q' }))).toMatchObject({
      code: 'invalid_parameter',
    });
    expect(failure(subscribe({ nn: 'Ada' }))).toEqual({
      code: 'missing_parameter',
      message: 'email is required',
    });
  });
});

describe('[params.send-emails-string] send_emails read by its words', () => {
  it.each([
    ['false', false],
    ['FALSE', false],
    ['0', false],
    ['no', false],
    ['off', false],
    [false, false],
    [0, false],
    ['true', true],
    ['1', true],
    ['yes', true],
    ['on', true],
  ])('%j is %s', (value, expected) => {
    expect(subscribe({ email: 'a@example.com', send_emails: value })).toMatchObject({
      send_emails: expected,
    });
  });

  it('a word that is not yes or no is a 400, not true', () => {
    expect(failure(subscribe({ email: 'a@example.com', send_emails: 'nope' }))).toMatchObject({
      code: 'invalid_parameter',
    });
  });
});
