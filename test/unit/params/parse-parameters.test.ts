import { describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import {
  parseAddSubscriberParameters,
  parseEmailParameters,
  parseSubscribeParameters,
} from '../../../shared/domain/parameters/parse-parameters.ts';
import { testSettings } from '../../support/fixtures.ts';

const settings = testSettings();
const subscribe = (raw: Record<string, unknown>) => parseSubscribeParameters(raw, settings);
const failure = (result: unknown) =>
  isNewsletterError(result) ? { code: result.code, message: result.message } : result;

describe('email', () => {
  it('is trimmed and lower-cased', () => {
    expect(subscribe({ email: '  Ada.Lovelace+news@Example.CO.uk ' })).toMatchObject({
      email: 'ada.lovelace+news@example.co.uk',
    });
  });

  it.each([
    ['a@b'],
    ['a b@example.com'],
    ['a@exa\nmple.com'],
    ['a\u0000@example.com'],
    ['ä@example.com'],
    ['a@аpple.com'],
    ['"quoted"@example.com'],
    ['a..b@example.com'],
    ['a@-example.com'],
    [`${'x'.repeat(65)}@example.com`],
    [`a@${'x'.repeat(250)}.com`],
  ])('rejects %j', (email) => {
    expect(failure(subscribe({ email }))).toMatchObject({
      code: 'invalid_email',
      message: expect.stringMatching(/^email /),
    });
  });

  it('[params.email] accepts a local part of exactly 64 characters', () => {
    const email = `${'x'.repeat(64)}@example.com`;
    expect(subscribe({ email })).toMatchObject({ email });
  });

  it('accepts punycode domains', () => {
    expect(subscribe({ email: 'x@xn--80ak6aa92e.com' })).toMatchObject({
      email: 'x@xn--80ak6aa92e.com',
    });
  });

  it('is required', () => {
    expect(failure(subscribe({}))).toEqual({
      code: 'missing_parameter',
      message: 'email is required',
    });
    expect(failure(subscribe({ email: '' }))).toEqual({
      code: 'missing_parameter',
      message: 'email is required',
    });
    expect(failure(parseEmailParameters({ name: 'x' }))).toEqual({
      code: 'missing_parameter',
      message: 'email is required',
    });
  });

  it('must be a string', () => {
    expect(failure(subscribe({ email: ['a@example.com', 'b@example.com'] }))).toMatchObject({
      code: 'invalid_email',
    });
    expect(failure(subscribe({ email: 42 }))).toMatchObject({
      code: 'invalid_email',
      message: 'email must be a string',
    });
  });
});

describe('lists', () => {
  it('accepts lists[] form arrays, a single value and JSON numbers alike', () => {
    expect(subscribe({ email: 'a@example.com', 'lists[]': ['1', '4'] })).toMatchObject({
      lists: [1, 4],
    });
    expect(subscribe({ email: 'a@example.com', 'lists[]': '4' })).toMatchObject({ lists: [4] });
    expect(subscribe({ email: 'a@example.com', lists: '1' })).toMatchObject({ lists: [1] });
    expect(subscribe({ email: 'a@example.com', lists: [4, 1, 4] })).toMatchObject({
      lists: [1, 4],
    });
  });

  it('an unknown id is a 400 naming it', () => {
    expect(failure(subscribe({ email: 'a@example.com', lists: [9] }))).toEqual({
      code: 'unknown_list',
      message: 'lists: list 9 does not exist',
    });
  });

  it.each([[['x']], [[1.5]], [[-1]], [[{}]], [[true]]])('rejects non-ids %j', (lists) => {
    expect(failure(subscribe({ email: 'a@example.com', lists }))).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/^lists /),
    });
  });
});

describe('profile', () => {
  it('accepts profile[x], profile_x and a profile object', () => {
    expect(subscribe({ email: 'a@example.com', 'profile[1]': 'London' })).toMatchObject({
      profile: { '1': 'London' },
    });
    expect(subscribe({ email: 'a@example.com', profile_1: 'London' })).toMatchObject({
      profile: { '1': 'London' },
    });
    expect(
      subscribe({ email: 'a@example.com', profile: { '1': 'London', company: 7 } }),
    ).toMatchObject({
      profile: { '1': 'London', company: '7' },
    });
  });

  it('[params.unknown-profile-field] by default an unknown field is ignored and named, the rest kept', () => {
    expect(
      subscribe({
        email: 'a@example.com',
        profile_1: 'London',
        profile_2: 'x',
        'profile[3]': 'y',
        profile: { '4': 'z' },
      }),
    ).toEqual({
      email: 'a@example.com',
      profile: { '1': 'London' },
      send_emails: true,
      ignored_profile_fields: ['profile_2', 'profile_3', 'profile_4'],
    });
    const proto = subscribe({ email: 'a@example.com', profile: JSON.parse('{"__proto__": "x"}') });
    expect(proto).toMatchObject({ ignored_profile_fields: ['profile___proto__'] });
    expect(Object.getPrototypeOf((proto as { profile: object }).profile)).not.toBe('x');
    // No unknown field: nothing to name.
    expect(subscribe({ email: 'a@example.com', profile_1: 'x' })).not.toHaveProperty(
      'ignored_profile_fields',
    );
  });

  it('[params.unknown-profile-field] an ignored field with a value too long or of the wrong shape is still a 400', () => {
    expect(failure(subscribe({ email: 'a@example.com', profile_9: 'x'.repeat(256) }))).toEqual({
      code: 'invalid_parameter',
      message: 'profile_9 must be at most 255 characters',
    });
    expect(failure(subscribe({ email: 'a@example.com', profile: { '9': { deep: 1 } } }))).toEqual({
      code: 'invalid_parameter',
      message: 'profile_9 must be a string',
    });
    expect(failure(subscribe({ email: 'a@example.com', profile: 'x' }))).toMatchObject({
      code: 'invalid_parameter',
    });
  });

  it('[params.unknown-profile-field] with unknown_profile_fields=reject an unknown field is a 400 naming it', () => {
    const strict = testSettings({ unknown_profile_fields: 'reject' });
    const strictly = (raw: Record<string, unknown>) => parseSubscribeParameters(raw, strict);
    expect(failure(strictly({ email: 'a@example.com', profile_9: 'x' }))).toEqual({
      code: 'unknown_profile_field',
      message: 'profile_9 is not a profile field',
    });
    expect(
      failure(strictly({ email: 'a@example.com', profile: JSON.parse('{"__proto__": "x"}') })),
    ).toMatchObject({
      code: 'unknown_profile_field',
    });
    expect(
      failure(parseAddSubscriberParameters({ email: 'a@example.com', profile_9: 'x' }, strict)),
    ).toMatchObject({ code: 'unknown_profile_field' });
  });

  it('values are at most 255 characters without control characters', () => {
    expect(
      failure(subscribe({ email: 'a@example.com', profile_1: 'x'.repeat(256) })),
    ).toMatchObject({
      message: 'profile_1 must be at most 255 characters',
    });
    expect(failure(subscribe({ email: 'a@example.com', profile_1: 'a\nb' }))).toMatchObject({
      message: 'profile_1 must not contain control characters',
    });
  });

  it('profile must be an object', () => {
    expect(failure(subscribe({ email: 'a@example.com', profile: 'x' }))).toMatchObject({
      code: 'invalid_parameter',
    });
  });
});

describe('names and gender', () => {
  it('are trimmed; control characters and overlong values are rejected', () => {
    expect(subscribe({ email: 'a@example.com', name: '  Ada ', surname: 'L' })).toMatchObject({
      name: 'Ada',
      surname: 'L',
    });
    expect(failure(subscribe({ email: 'a@example.com', surname: 'x'.repeat(101) }))).toMatchObject({
      message: 'surname must be at most 100 characters',
    });
    expect(failure(subscribe({ email: 'a@example.com', name: 'a\u0000' }))).toMatchObject({
      message: 'name must not contain control characters',
    });
    expect(failure(subscribe({ email: 'a@example.com', name: 5 }))).toMatchObject({
      message: 'name must be a string',
    });
  });

  it('[params.error-names-parameter] an empty array is a value of the wrong shape, not "not given"', () => {
    expect(failure(subscribe({ email: 'a@example.com', name: [] }))).toEqual({
      code: 'invalid_parameter',
      message: 'name must be a string',
    });
    expect(failure(subscribe({ email: 'a@example.com', surname: [''] }))).toEqual({
      code: 'invalid_parameter',
      message: 'surname must be a string',
    });
  });

  it('gender is m, f or n in any case', () => {
    expect(subscribe({ email: 'a@example.com', gender: 'N' })).toMatchObject({ gender: 'n' });
    expect(subscribe({ email: 'a@example.com', gender: 'M' })).toMatchObject({ gender: 'm' });
    expect(subscribe({ email: 'a@example.com', gender: 'f' })).toMatchObject({ gender: 'f' });
    expect(failure(subscribe({ email: 'a@example.com', gender: 'x' }))).toMatchObject({
      message: 'gender must be m, f or n',
    });
  });
});

describe('send_emails and status', () => {
  it.each([
    [true, true],
    ['true', true],
    ['1', true],
    [1, true],
    ['yes', true],
    ['on', true],
    [false, false],
    ['false', false],
    ['0', false],
    ['no', false],
    ['off', false],
  ])('send_emails %j is %j', (value, expected) => {
    expect(subscribe({ email: 'a@example.com', send_emails: value })).toMatchObject({
      send_emails: expected,
    });
  });

  it('[params.send-emails-string] send_emails words are read around white space', () => {
    expect(subscribe({ email: 'a@example.com', send_emails: ' No ' })).toMatchObject({
      send_emails: false,
    });
    expect(subscribe({ email: 'a@example.com', send_emails: 'on ' })).toMatchObject({
      send_emails: true,
    });
  });

  it('send_emails defaults to true and rejects other words', () => {
    expect(subscribe({ email: 'a@example.com' })).toMatchObject({ send_emails: true });
    expect(failure(subscribe({ email: 'a@example.com', send_emails: 'maybe' }))).toMatchObject({
      message: expect.stringMatching(/^send_emails /),
    });
  });

  it('status is S or C, default C', () => {
    expect(parseAddSubscriberParameters({ email: 'a@example.com' }, settings)).toMatchObject({
      status: 'C',
    });
    expect(
      parseAddSubscriberParameters({ email: 'a@example.com', status: 'S' }, settings),
    ).toMatchObject({ status: 'S' });
    expect(
      failure(parseAddSubscriberParameters({ email: 'a@example.com', status: 'B' }, settings)),
    ).toMatchObject({
      message: 'status must be S or C',
    });
  });
});

it('ignores unknown parameters such as submit buttons and keeps names case-sensitive', () => {
  const parsed = subscribe({ email: 'a@example.com', submit: 'Go', Name: 'ignored' });
  expect(parsed).toEqual({ email: 'a@example.com', send_emails: true });
});

describe('shape of the parameters', () => {
  it.each([[null], ['email=a@example.com'], [42], [['a@example.com']]])(
    '[params.error-names-parameter] parameters %j that are not an object are a 400 saying so',
    (raw) => {
      const notAnObject = { code: 'invalid_parameter', message: 'parameters must be an object' };
      const given = raw as unknown as Record<string, unknown>;
      expect(failure(subscribe(given))).toEqual(notAnObject);
      expect(failure(parseAddSubscriberParameters(given, settings))).toEqual(notAnObject);
      expect(failure(parseEmailParameters(given))).toEqual(notAnObject);
    },
  );

  it('[params.unknown-ignored] unsubscribe and delete take only the email; lists and profile fields are ignored', () => {
    expect(
      parseEmailParameters({
        email: ' A@Example.com ',
        lists: [9],
        profile_9: 'x',
        'profile[1]': 'y',
        profile: 'not an object',
        name: 5,
      }),
    ).toEqual({ email: 'a@example.com' });
    expect(failure(parseEmailParameters({ email: 'a@b' }))).toMatchObject({
      code: 'invalid_email',
    });
  });

  it('[params.empty] names, gender and profile values that are blank after trimming are not given', () => {
    const parsed = subscribe({
      email: 'a@example.com',
      name: '   ',
      surname: ' ',
      gender: '  ',
      profile_1: '  ',
      profile_company: 'Acme',
    });
    expect(parsed).toEqual({
      email: 'a@example.com',
      profile: { company: 'Acme' },
      send_emails: true,
    });
    expect(Object.keys(parsed).sort()).toEqual(['email', 'profile', 'send_emails']);
    const added = parseAddSubscriberParameters({ email: 'a@example.com', name: '' }, settings);
    expect(Object.keys(added).sort()).toEqual(['email', 'status']);
  });

  it('[params.unknown-profile-field] an ignored field is named by at most 40 characters of its id', () => {
    const id = 'x'.repeat(60);
    expect(subscribe({ email: 'a@example.com', [`profile_${id}`]: 'v' })).toMatchObject({
      ignored_profile_fields: [`profile_${'x'.repeat(40)}`],
    });
  });

  it('[params.error-names-parameter] add_subscriber refuses an unknown list, naming it', () => {
    expect(
      failure(parseAddSubscriberParameters({ email: 'a@example.com', lists: [1, 9] }, settings)),
    ).toEqual({ code: 'unknown_list', message: 'lists: list 9 does not exist' });
  });
});
