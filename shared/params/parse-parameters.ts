import * as v from 'valibot';
import { isNewsletterError, type NewsletterError, newsletterError } from '../errors.ts';
import type { Settings } from '../settings/settings-schema.ts';
import { emailAddress } from './email-address.ts';
import { normaliseParameters, type RawParameters } from './normalise-parameters.ts';

/** Letters `gender` accepts: male, female, not said. */
export type Gender = 'm' | 'f' | 'n';

/** Subscriber fields a call may provide; absent means "not provided", never "clear". */
export interface SubscriberFields {
  readonly name?: string;
  readonly surname?: string;
  readonly gender?: Gender;
  readonly lists?: readonly number[];
  readonly profile?: Readonly<Record<string, string>>;
}

/** Parameters of `subscribe`. */
export interface SubscribeParameters extends SubscriberFields {
  readonly email: string;
  readonly send_emails: boolean;
}

/** Parameters of `add_subscriber`. */
export interface AddSubscriberParameters extends SubscriberFields {
  readonly email: string;
  readonly status: 'S' | 'C';
}

/** Parameters of `unsubscribe` and `delete_subscriber`. */
export interface EmailParameters {
  readonly email: string;
}

const CONTROL_CHARACTERS = /\p{Cc}/u;
const NAME_MAX = 100;
const PROFILE_VALUE_MAX = 255;

/** Form and JSON clients send absent optional values as null; treat them as not provided. */
const optional = <T extends v.GenericSchema>(schema: T) => v.optional(v.nullable(schema));

const personName = (parameter: string) =>
  v.pipe(
    v.string(`${parameter} must be a string`),
    v.trim(),
    v.maxLength(NAME_MAX, `${parameter} must be at most ${NAME_MAX} characters`),
    v.check(
      (value) => !CONTROL_CHARACTERS.test(value),
      `${parameter} must not contain control characters`,
    ),
  );

const gender = v.pipe(
  v.string('gender must be a string'),
  v.trim(),
  v.toLowerCase(),
  v.check(
    (value) => value === '' || value === 'm' || value === 'f' || value === 'n',
    'gender must be m, f or n',
  ),
);

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

const flag = (parameter: string) =>
  v.pipe(
    v.union([v.boolean(), v.number(), v.string()], `${parameter} must be true or false`),
    v.transform((value): boolean | undefined => {
      const word = String(value).trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      return undefined;
    }),
    v.check(
      (value) => value !== undefined,
      `${parameter} must be one of true/false, 1/0, yes/no, on/off`,
    ),
  );

const listId = v.pipe(
  v.union([v.number(), v.string()], 'lists must contain list ids (numbers)'),
  v.transform((value) =>
    typeof value === 'string' && /^\s*\d{1,9}\s*$/.test(value) ? Number(value) : value,
  ),
  v.number('lists must contain list ids (numbers)'),
  v.integer('lists must contain whole-number list ids'),
  v.minValue(1, 'lists must contain positive list ids'),
);

const profileValue = (id: string) =>
  v.pipe(
    v.union([v.string(), v.number()], `profile_${id} must be a string`),
    v.transform(String),
    v.trim(),
    v.maxLength(PROFILE_VALUE_MAX, `profile_${id} must be at most ${PROFILE_VALUE_MAX} characters`),
    v.check(
      (value) => !CONTROL_CHARACTERS.test(value),
      `profile_${id} must not contain control characters`,
    ),
  );

const fieldsSchema = v.looseObject(
  {
    email: v.optional(v.unknown()),
    name: optional(personName('name')),
    surname: optional(personName('surname')),
    gender: optional(gender),
    send_emails: optional(flag('send_emails')),
    status: optional(v.picklist(['S', 'C'], 'status must be S or C')),
  },
  'parameters must be an object',
);

type Issue = NewsletterError;
const invalid = (message: string): Issue => newsletterError('invalid_parameter', message);

function firstIssue(issues: readonly v.BaseIssue<unknown>[]): Issue {
  const issue = issues[0];
  return invalid(issue?.message ?? 'invalid parameters');
}

function parseEmail(value: unknown): string | Issue {
  if (value === undefined || value === null || value === '') {
    return newsletterError('missing_parameter', 'email is required');
  }
  const result = v.safeParse(emailAddress(), value);
  if (result.success) return result.output;
  return newsletterError(
    'invalid_email',
    result.issues[0]?.message ?? 'email must be a valid e-mail address',
  );
}

function parseLists(raw: readonly unknown[], settings: Settings): number[] | Issue {
  const ids = new Set<number>();
  for (const item of raw) {
    if (item === '') continue; // an unticked form placeholder
    const result = v.safeParse(listId, item);
    if (!result.success) return firstIssue(result.issues);
    if (!settings.lists.some((list) => list.id === result.output)) {
      return newsletterError('unknown_list', `lists: list ${result.output} does not exist`);
    }
    ids.add(result.output);
  }
  if (ids.size > settings.lists.length) return invalid('lists has too many entries');
  return [...ids].sort((a, b) => a - b);
}

function parseProfile(
  raw: Readonly<Record<string, unknown>>,
  settings: Settings,
): Record<string, string> | Issue {
  const profile: Record<string, string> = {};
  for (const [id, value] of Object.entries(raw)) {
    if (!settings.profile_fields.some((field) => field.id === id)) {
      return newsletterError(
        'unknown_profile_field',
        `profile_${id.slice(0, 40)} is not a profile field`,
      );
    }
    if (value === null || value === undefined) continue;
    const result = v.safeParse(profileValue(id), value);
    if (!result.success) return firstIssue(result.issues);
    profile[id] = result.output;
  }
  return profile;
}

interface CommonOutput {
  email: string;
  fields: SubscriberFields;
  send_emails?: boolean;
  status?: 'S' | 'C';
}

/** Validates everything a subscriber-writing call may carry. */
function parseCommon(raw: RawParameters, settings: Settings): CommonOutput | Issue {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return invalid('parameters must be an object');
  const folded = normaliseParameters(raw);
  if (folded.problem) return invalid(folded.problem);
  const result = v.safeParse(fieldsSchema, folded.fields);
  if (!result.success) return firstIssue(result.issues);
  const email = parseEmail(folded.fields.email);
  if (typeof email !== 'string') return email;
  const out = result.output;
  const fields: {
    -readonly [K in keyof SubscriberFields]: SubscriberFields[K];
  } = {};
  if (out.name != null) fields.name = out.name;
  if (out.surname != null) fields.surname = out.surname;
  if (out.gender != null && out.gender !== '') fields.gender = out.gender as Gender;
  if (folded.lists) {
    const lists = parseLists(folded.lists, settings);
    if (isNewsletterError(lists)) return lists;
    fields.lists = lists;
  }
  if (folded.profile) {
    const profile = parseProfile(folded.profile, settings);
    if (isNewsletterError(profile)) return profile;
    fields.profile = profile;
  }
  return {
    email,
    fields,
    ...(out.send_emails == null ? {} : { send_emails: out.send_emails as boolean }),
    ...(out.status == null ? {} : { status: out.status }),
  };
}

/** Validates and normalises `subscribe` parameters (decisions part 2). */
export function parseSubscribeParameters(
  raw: RawParameters,
  settings: Settings,
): SubscribeParameters | Issue {
  const common = parseCommon(raw, settings);
  if (isNewsletterError(common)) return common;
  return { email: common.email, ...common.fields, send_emails: common.send_emails ?? true };
}

/** Validates and normalises `add_subscriber` parameters. */
export function parseAddSubscriberParameters(
  raw: RawParameters,
  settings: Settings,
): AddSubscriberParameters | Issue {
  const common = parseCommon(raw, settings);
  if (isNewsletterError(common)) return common;
  return { email: common.email, ...common.fields, status: common.status ?? 'C' };
}

/** Validates `unsubscribe` and `delete_subscriber` parameters: only `email` matters. */
export function parseEmailParameters(raw: RawParameters): EmailParameters | Issue {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return invalid('parameters must be an object');
  const email = parseEmail(raw.email);
  return typeof email === 'string' ? { email } : email;
}
