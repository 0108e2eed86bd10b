import { describe, expect, it } from 'vitest';
import { parseSettings, SettingsError } from '../../../shared/domain/parse-settings.ts';

const minimal = { lists: [{ id: 1, name: 'News' }], sender: { address: 'News@Example.com' } };

describe('settings', () => {
  it('fill safe defaults around a minimal document', () => {
    const settings = parseSettings(JSON.stringify(minimal));
    expect(settings).toMatchObject({
      opt_in: 'double',
      required_public_fields: [],
      admin_address: '',
      activation_lifetime_hours: 168,
      resend_cooldown_minutes: 10,
      sender: { address: 'news@example.com', name: '' },
    });
    expect(settings.lists[0]).toEqual({ id: 1, name: 'News', private: false, preassigned: false });
    expect(settings.texts.activation?.body).toContain('{confirm_url}');
  });

  it.each([
    [{ ...minimal, opt_in: 'triple' }, /^settings\.opt_in: /],
    [{ ...minimal, lists: [{ id: 0, name: 'x' }] }, /^settings\.lists\.0\.id: /],
    [
      {
        ...minimal,
        lists: [
          { id: 1, name: 'a' },
          { id: 1, name: 'b' },
        ],
      },
      /lists: ids must be unique/,
    ],
    [{ ...minimal, sender: { address: 'nope' } }, /^settings\.sender\.address: /],
    [{ ...minimal, admin_address: 'x' }, /^settings\.admin_address: /],
    [{ ...minimal, required_public_fields: ['email2'] }, /^settings\.required_public_fields\.0: /],
    [{ ...minimal, surprise: true }, /surprise/],
    [
      { ...minimal, texts: { welcome: { subject: 'a\nb', body: 'x' } } },
      /^settings\.texts\.welcome\.subject: /,
    ],
  ])('name the bad field (%#)', (document, message) => {
    expect(() => parseSettings(document)).toThrow(SettingsError);
    expect(() => parseSettings(document)).toThrow(message);
  });

  it('[campaign.empty-values] take tag fallbacks for known tags only, as one short line', () => {
    const withFields = { ...minimal, profile_fields: [{ id: 'city', name: 'City' }] };
    const fallbacks = (tag_fallbacks: Record<string, unknown>) =>
      parseSettings({ ...withFields, campaign: { tag_fallbacks } }).campaign.tag_fallbacks;
    expect(parseSettings(minimal).campaign.tag_fallbacks).toEqual({});
    const good = { name: 'reader', surname: 'R.', email: 'you', profile_city: 'your city' };
    expect(fallbacks(good)).toEqual(good);
    expect(fallbacks({ name: 'x'.repeat(100) }).name).toHaveLength(100);
    for (const [bad, message] of [
      [{ nmae: 'reader' }, /tag_fallbacks\.nmae: must be name, surname, email or profile_<id>/],
      [{ unsubscription_url: 'x' }, /must be name, surname, email or profile_<id>/],
      [{ Name: 'x' }, /must be name, surname, email or profile_<id>/],
      [
        { profile_town: 'x' },
        /campaign\.tag_fallbacks: profile_town names no field of profile_fields/,
      ],
      [{ name: '' }, /tag_fallbacks\.name: must not be blank/],
      [{ name: ' \t' }, /must not be blank/],
      [{ name: 'x'.repeat(101) }, /tag_fallbacks\.name: /],
      [{ name: 'a\nb' }, /must be one line without control characters/],
      [{ name: 'a\u0000' }, /must be one line without control characters/],
      [{ name: 'a\u2028b' }, /must be one line without control characters/],
      [{ name: '\u202Ereader' }, /must be one line without control characters/],
      [{ name: 3 }, /tag_fallbacks\.name: /],
    ] as const) {
      expect(() => fallbacks(bad), JSON.stringify(bad)).toThrow(SettingsError);
      expect(() => fallbacks(bad), JSON.stringify(bad)).toThrow(message);
    }
  });

  it('reject a document that is not JSON', () => {
    expect(() => parseSettings('{')).toThrow(/^settings: not valid JSON/);
  });

  it('refuse profile fields sharing an id, naming the rule', () => {
    const document = {
      ...minimal,
      profile_fields: [
        { id: 'city', name: 'City' },
        { id: 'city', name: 'Town' },
      ],
    };
    expect(() => parseSettings(document)).toThrow('settings: profile_fields: ids must be unique');
    expect(
      parseSettings({ ...minimal, profile_fields: [{ id: 'city', name: 'City' }] }).profile_fields,
    ).toEqual([{ id: 'city', name: 'City' }]);
  });

  it('report at most five problems, separated by semicolons, as a SettingsError', () => {
    const document = {
      lists: [{ id: 0, name: 'x' }],
      sender: { address: 'nope' },
      admin_address: 'x',
      opt_in: 'triple',
      resend_cooldown_minutes: 1,
      unknown_profile_fields: 'maybe',
      surprise: true,
    };
    let error: unknown;
    try {
      parseSettings(document);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).name).toBe('SettingsError');
    const problems = (error as Error).message.split('; ');
    expect(problems).toHaveLength(5);
    for (const problem of problems) expect(problem).toMatch(/^settings\.[a-z_.0-9]+: \S/);
  });

  it('name the document itself when it is not an object', () => {
    expect(() => parseSettings('42')).toThrow(/^settings: [^;]+$/);
  });
});
