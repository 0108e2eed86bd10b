import * as v from 'valibot';
import { isNewsletterError, type NewsletterError, newsletterError } from '../errors.ts';
import type { Settings } from '../settings-schema.ts';
import { isNotGiven, normaliseParameters, type RawParameters } from './normalise-parameters.ts';
import {
  AddSubscriberRequestSchema,
  EmailRequestSchema,
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
    return invalid(`profile_${String(path[1].key).slice(0, 40)} ${issue.message}`);
  }
  return invalid(issue.message);
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
): v.InferOutput<S> | Issue {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return invalid('parameters must be an object');
  const folded = normaliseParameters(raw);
  if (settings && folded.problem) return invalid(folded.problem);
  if (isNotGiven(folded.fields.email))
    return newsletterError('missing_parameter', 'email is required');
  if (!settings) return checked(schema, folded.fields);
  // Field ids are checked on the raw keys: a key such as `__proto__` must be refused by name,
  // not silently lost by whatever builds the parsed object.
  const unknownField = Object.keys(folded.profile ?? {}).find(
    (id) => !settings.profile_fields.some((field) => field.id === id),
  );
  if (unknownField !== undefined) {
    return newsletterError(
      'unknown_profile_field',
      `profile_${unknownField.slice(0, 40)} is not a profile field`,
    );
  }
  return checked(schema, {
    ...folded.fields,
    ...(folded.lists ? { lists: folded.lists } : {}),
    ...(folded.profile ? { profile: folded.profile } : {}),
  });
}

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

/** Validates and normalises `subscribe` parameters (decisions part 2). */
export function parseSubscribeParameters(
  raw: RawParameters,
  settings: Settings,
): SubscribeParameters | Issue {
  const call = validate(SubscribeRequestSchema, raw, settings);
  if (isNewsletterError(call)) return call;
  const fields = subscriberFields(call, settings);
  if (isNewsletterError(fields)) return fields;
  return {
    email: call.email,
    ...fields,
    send_emails: (call.send_emails as boolean | null | undefined) ?? true,
  };
}

/** Validates and normalises `add_subscriber` parameters. */
export function parseAddSubscriberParameters(
  raw: RawParameters,
  settings: Settings,
): AddSubscriberParameters | Issue {
  const call = validate(AddSubscriberRequestSchema, raw, settings);
  if (isNewsletterError(call)) return call;
  const fields = subscriberFields(call, settings);
  if (isNewsletterError(fields)) return fields;
  return { email: call.email, ...fields, status: call.status ?? 'C' };
}

/** Validates `unsubscribe` and `delete_subscriber` parameters: only `email` matters. */
export function parseEmailParameters(raw: RawParameters): EmailParameters | Issue {
  const call = validate(EmailRequestSchema, raw);
  return isNewsletterError(call) ? call : { email: call.email };
}
