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
});
