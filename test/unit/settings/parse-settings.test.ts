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
