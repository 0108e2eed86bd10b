import * as v from 'valibot';
import type { DueMail } from '../../../shared/adapters/mail/mail-port.ts';
import { type Settings, SettingsSchema } from '../../../shared/domain/settings-schema.ts';

/** Settings as an operator might write them, defaults (texts included) filled in. */
export function mailSettings(overrides: Partial<Settings> = {}): Settings {
  const parsed = v.parse(SettingsSchema, {
    lists: [
      { id: 1, name: 'News' },
      { id: 2, name: 'Tips & Tricks' },
    ],
    sender: { address: 'news@example.com', name: 'Example Newsletter' },
    admin_address: 'admin@example.com',
  });
  return { ...parsed, ...overrides };
}

/** The name an attacker would type into a public form. */
export const HOSTILE_NAME = '<script>alert(1)</script>\r\nBcc: evil@example.com';

export const CONFIRM_URL =
  'https://api.example.com/api/newsletter/v1/subscription/confirm?token=Zm9vYmFyYmF6cXV4cXV1eA';

export const UNSUBSCRIBE_URL =
  'https://api.example.com/api/newsletter/v1/subscription/unsubscribe?token=cXV1eGJhemJhcmZvbw';

/** A due mail of the given kind with the links the domain would attach to it. */
export function dueMail(kind: DueMail['kind'], overrides: Partial<DueMail> = {}): DueMail {
  const links =
    kind === 'activation' ? { confirmUrl: CONFIRM_URL } : { unsubscribeUrl: UNSUBSCRIBE_URL };
  return {
    kind,
    to: kind === 'admin' ? 'admin@example.com' : 'ada@example.com',
    subscriber: {
      email: 'ada@example.com',
      name: 'Ada',
      surname: 'Lovelace',
      listNames: ['News', 'Tips & Tricks'],
    },
    ...(kind === 'admin' ? {} : links),
    ...overrides,
  };
}
