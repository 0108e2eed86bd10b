import * as v from 'valibot';
import { emailAddress } from './email-address.ts';

/**
 * The request parameters of every operation as valibot schemas, after the alternative
 * spellings are folded (normalise-parameters.ts). Parsing validates with these, and the
 * OpenAPI description is generated from them, so the two cannot drift apart. Rules that
 * depend on the settings (does list 7 exist?) are checked after, in parse-parameters.ts.
 * `api_key` is not here: whether a route needs it is the route table's business, and the
 * REST adapter checks it before any operation runs.
 */

const CONTROL_CHARACTERS = /\p{Cc}/u;
/** Longest name or surname. */
export const NAME_MAX = 100;
/** Longest profile field value. */
export const PROFILE_VALUE_MAX = 255;

/** Clients send absent optional values as null or "": both mean not provided. */
const optional = <T extends v.GenericSchema>(schema: T) => v.optional(v.nullable(schema));

const noControlCharacters = (parameter: string) =>
  v.check(
    (value: string) => !CONTROL_CHARACTERS.test(value),
    `${parameter} must not contain control characters`,
  );

const personName = (parameter: string) =>
  v.pipe(
    v.string(`${parameter} must be a string`),
    v.trim(),
    v.maxLength(NAME_MAX, `${parameter} must be at most ${NAME_MAX} characters`),
    noControlCharacters(parameter),
    v.description(
      `Subscriber ${parameter}; trimmed, at most ${NAME_MAX} characters, no control characters.`,
    ),
  );

const gender = v.pipe(
  v.string('gender must be a string'),
  v.trim(),
  v.toLowerCase(),
  v.check((value) => ['', 'm', 'f', 'n'].includes(value), 'gender must be m, f or n'),
  v.description('m, f or n (not said), any case; empty means not given.'),
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

/** One list id: a positive integer, also as a digit string from a form. */
export const ListIdSchema = v.pipe(
  v.union(
    [
      v.pipe(
        v.number(),
        v.integer('lists must contain whole-number list ids'),
        v.minValue(1, 'lists must contain positive list ids'),
      ),
      v.pipe(v.string(), v.regex(/^\s*[1-9]\d{0,8}\s*$/, 'lists must contain list ids (numbers)')),
    ],
    'lists must contain list ids (numbers)',
  ),
  v.transform(Number),
);

/** One profile field value; messages are completed with the field's name by the parser. */
export const ProfileValueSchema = v.pipe(
  v.union([v.string(), v.number()], 'must be a string'),
  v.transform(String),
  v.trim(),
  v.maxLength(PROFILE_VALUE_MAX, `must be at most ${PROFILE_VALUE_MAX} characters`),
  v.check((value) => !CONTROL_CHARACTERS.test(value), 'must not contain control characters'),
);

const email = v.pipe(emailAddress(), v.description('E-mail address; trimmed and lower-cased.'));

const subscriberFields = {
  name: optional(personName('name')),
  surname: optional(personName('surname')),
  gender: optional(gender),
  lists: optional(
    v.pipe(
      v.array(ListIdSchema),
      v.description(
        'List ids; as form fields `lists[]=1&lists[]=2`, `lists=1` or PHP-style ' +
          '`lists[0]=1&lists[1]=2`; in JSON also an object with numeric keys ({"0": 1}).',
      ),
    ),
  ),
  profile: optional(
    v.pipe(
      v.record(v.string(), v.nullable(ProfileValueSchema)),
      v.description(
        'Profile field values by field id; also `profile[<id>]=v` or `profile_<id>=v`.',
      ),
    ),
  ),
};

/**
 * `subscribe` (interface 4.1). The original plugin's form names (`ne`, `nn`, `ns`, `nx`,
 * `nl[]`, `np<N>`, `ny`) are renamed to these before validation (original-form-fields.ts).
 */
export const SubscribeRequestSchema = v.looseObject({
  email,
  ...subscriberFields,
  send_emails: optional(
    v.pipe(
      flag('send_emails'),
      v.description(
        'Send activation and welcome mails (default true). Read by its words: the string "false" is false.',
      ),
    ),
  ),
  privacy: optional(
    v.pipe(
      flag('privacy'),
      v.description(
        "A form's privacy checkbox (`on` when ticked; the original's `ny`). Required for keyless calls when the settings' required_public_fields names privacy.",
      ),
    ),
  ),
});

/** `subscribers/add` (interface 4.3). */
export const AddSubscriberRequestSchema = v.looseObject({
  email,
  ...subscriberFields,
  status: optional(
    v.pipe(v.picklist(['S', 'C'], 'status must be S or C'), v.description('S or C (default C).')),
  ),
});

/** `unsubscribe` and `subscribers/delete` (interface 4.2, 4.4). */
export const EmailRequestSchema = v.looseObject({ email });

/** `subscribers` and `newsletters` (interface 4.5, 4.6): no parameters but the key. */
export const NoParametersSchema = v.looseObject({});

/**
 * The web version: the newsletter's id, in the path (`/newsletters/{id}/view`). Documents the
 * API; the operation checks the id itself, since anything that is no id is a 404, not a 400.
 */
export const ViewRequestSchema = v.looseObject({
  id: v.pipe(
    v.string(),
    v.regex(/^[1-9][0-9]*$/),
    v.description('The id of a sent, public newsletter (as `newsletters` lists it).'),
  ),
});

/** Link pages: the token from the mail. */
export const TokenRequestSchema = v.looseObject({
  token: v.pipe(v.string(), v.description('The token from the link in the mail.')),
});
