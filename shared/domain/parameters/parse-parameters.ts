import * as v from 'valibot';
import { isNewsletterError, type NewsletterError, newsletterError } from '../errors.ts';
import type { Settings } from '../settings-schema.ts';
import { isNotGiven, normaliseParameters, type RawParameters } from './normalise-parameters.ts';
import { foldOriginalFormFields } from './original-form-fields.ts';
import {
  AddSubscriberRequestSchema,
  EmailRequestSchema,
  ProfileValueSchema,
  SubscribeRequestSchema,
} from './request-schemas.ts';

/** Letters `gender` accepts: male, female, not said. */
export type Gender = 'm' | 'f' | 'n';

/** Subscriber fields a call may provide; absent means "not provided", never "clear". */
export interface SubscriberFields {
  readonly name?: string;
  readonly surname?: string;
  readonly gender?: Gender;
  readonly lists?: readonly number[];
  readonly profile?: Readonly<Record<string, string>>;
  /** Only from API v2 (`country`, `region`, `city`), validated there ([v2.subscriptions]). */
  readonly place?: { readonly country?: string; readonly region?: string; readonly city?: string };
  /** Only from API v2, validated there. */
  readonly language?: string;
}

/** What parsing set aside without refusing the call. */
export interface IgnoredParameters {
  /**
   * Profile fields the settings do not define, as `profile_<id>`, when the settings ignore them
   * (`unknown_profile_fields: ignore`); absent when there were none.
   */
  readonly ignored_profile_fields?: readonly string[];
}

/** Parameters of `subscribe`. */
export interface SubscribeParameters extends SubscriberFields, IgnoredParameters {
  readonly email: string;
  readonly send_emails: boolean;
  /** The form's privacy checkbox was ticked ([params.privacy]); absent when not. */
  readonly privacy?: true;
}

/** Parameters of `add_subscriber`. */
export interface AddSubscriberParameters extends SubscriberFields, IgnoredParameters {
  readonly email: string;
  readonly status: 'S' | 'C';
}

/** Parameters of `unsubscribe` and `delete_subscriber`. */
export interface EmailParameters {
  readonly email: string;
}

type Issue = NewsletterError;
const invalid = (message: string): Issue => newsletterError('invalid_parameter', message);

/** Turns valibot's first issue into an error value whose message names the parameter. */
function toError(issues: readonly v.BaseIssue<unknown>[]): Issue {
  const issue = issues[0];
  if (!issue) return invalid('invalid parameters');
  const path = issue.path ?? [];
  const parameter = path[0]?.key;
  if (parameter === 'email') return newsletterError('invalid_email', issue.message);
  if (parameter === 'profile' && path[1]) {
    return invalid(`profile_${String(path[1].key).slice(0, ID_SHOWN)} ${issue.message}`);
  }
  return invalid(issue.message);
}

/** The longest field id an error message or an ignored-field name repeats. */
const ID_SHOWN = 40;

/** A validated call and the profile fields it set aside. */
interface Validated<T> {
  readonly call: T;
  readonly ignored: readonly string[];
}

/**
 * Profile fields the settings do not define ([params.unknown-profile-field]): ignored (and
 * returned by name) or refused, as the settings say. Field ids are checked on the raw keys: a
 * key such as `__proto__` must be named, not silently lost by whatever builds the parsed
 * object. An ignored field's value is still checked, so a value too long or of the wrong shape
 * is a 400 either way: the strictness setting is about names, not about bad input.
 */
function splitProfile(
  profile: Readonly<Record<string, unknown>>,
  settings: Settings,
): { known: Record<string, unknown>; ignored: string[] } | Issue {
  const known = Object.create(null) as Record<string, unknown>;
  const ignored: string[] = [];
  for (const [id, value] of Object.entries(profile)) {
    if (settings.profile_fields.some((field) => field.id === id)) {
      known[id] = value;
      continue;
    }
    const name = `profile_${id.slice(0, ID_SHOWN)}`;
    if (settings.unknown_profile_fields === 'reject') {
      return newsletterError('unknown_profile_field', `${name} is not a profile field`);
    }
    const result = v.safeParse(v.nullable(ProfileValueSchema), value);
    if (!result.success) return invalid(`${name} ${result.issues[0].message}`);
    ignored.push(name);
  }
  return { known, ignored };
}

/**
 * Folds the spellings and validates against an operation's schema; email first. With
 * `settings`, the call takes subscriber fields (lists, profile) and they are checked against
 * them; without, those parameters are unknown to the operation and ignored like any other.
 */
function validate<S extends v.GenericSchema>(
  schema: S,
  raw: RawParameters,
  settings?: Settings,
): Validated<v.InferOutput<S>> | Issue {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return invalid('parameters must be an object');
  const folded = normaliseParameters(raw);
  if (settings && folded.problem) return invalid(folded.problem);
  if (isNotGiven(folded.fields.email))
    return newsletterError('missing_parameter', 'email is required');
  if (!settings) return withNothingIgnored(checked(schema, folded.fields));
  const profile = folded.profile ? splitProfile(folded.profile, settings) : undefined;
  if (isNewsletterError(profile)) return profile;
  const call = checked(schema, {
    ...folded.fields,
    ...(folded.lists ? { lists: folded.lists } : {}),
    ...(profile ? { profile: profile.known } : {}),
  });
  return isNewsletterError(call) ? call : { call, ignored: profile?.ignored ?? [] };
}

function withNothingIgnored<T>(call: T | Issue): Validated<T> | Issue {
  return isNewsletterError(call) ? call : { call, ignored: [] };
}

/** The ignored fields as a parsed call carries them: absent when there are none. */
const ignoredField = (ignored: readonly string[]): IgnoredParameters =>
  ignored.length > 0 ? { ignored_profile_fields: ignored } : {};

/** Runs the schema; its first issue becomes the error value. */
function checked<S extends v.GenericSchema>(
  schema: S,
  input: Record<string, unknown>,
): v.InferOutput<S> | Issue {
  const result = v.safeParse(schema, input);
  return result.success ? result.output : toError(result.issues);
}

/** Checks the fields that depend on the settings and drops "not given" values. */
function subscriberFields(
  out: {
    name?: string | null;
    surname?: string | null;
    gender?: string | null;
    lists?: number[] | null;
    profile?: Record<string, string | null> | null;
  },
  settings: Settings,
): SubscriberFields | Issue {
  const fields: { -readonly [K in keyof SubscriberFields]: SubscriberFields[K] } = {};
  // Empty after trimming is "not given" too: an empty form field never clears a value.
  if (out.name) fields.name = out.name;
  if (out.surname) fields.surname = out.surname;
  if (out.gender) fields.gender = out.gender as Gender;
  if (out.lists) {
    const ids = [...new Set(out.lists)].sort((a, b) => a - b);
    const unknown = ids.find((id) => !settings.lists.some((list) => list.id === id));
    if (unknown !== undefined)
      return newsletterError('unknown_list', `lists: list ${unknown} does not exist`);
    fields.lists = ids;
  }
  if (out.profile) {
    const profile: Record<string, string> = {};
    for (const [id, value] of Object.entries(out.profile)) {
      if (value) profile[id] = value;
    }
    fields.profile = profile;
  }
  return fields;
}

/**
 * Validates and normalises `subscribe` parameters (decisions part 2). The original plugin's
 * form field names are read as ours first ([params.original-form-fields]).
 */
export function parseSubscribeParameters(
  raw: RawParameters,
  settings: Settings,
): SubscribeParameters | Issue {
  const renamed =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw)
      ? foldOriginalFormFields(raw)
      : raw;
  if (isNewsletterError(renamed)) return renamed;
  const validated = validate(SubscribeRequestSchema, renamed, settings);
  if (isNewsletterError(validated)) return validated;
  const { call, ignored } = validated;
  const fields = subscriberFields(call, settings);
  if (isNewsletterError(fields)) return fields;
  return {
    email: call.email,
    ...fields,
    send_emails: (call.send_emails as boolean | null | undefined) ?? true,
    ...(call.privacy === true ? { privacy: true } : {}),
    ...ignoredField(ignored),
  };
}

/** Validates and normalises `add_subscriber` parameters. */
export function parseAddSubscriberParameters(
  raw: RawParameters,
  settings: Settings,
): AddSubscriberParameters | Issue {
  const validated = validate(AddSubscriberRequestSchema, raw, settings);
  if (isNewsletterError(validated)) return validated;
  const { call, ignored } = validated;
  const fields = subscriberFields(call, settings);
  if (isNewsletterError(fields)) return fields;
  return { email: call.email, ...fields, status: call.status ?? 'C', ...ignoredField(ignored) };
}

/** Validates `unsubscribe` and `delete_subscriber` parameters: only `email` matters. */
export function parseEmailParameters(raw: RawParameters): EmailParameters | Issue {
  const validated = validate(EmailRequestSchema, raw);
  return isNewsletterError(validated) ? validated : { email: validated.call.email };
}
