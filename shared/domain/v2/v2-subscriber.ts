import * as v from 'valibot';
import { ConsentSchema } from '../consent.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../errors.ts';
import { emailAddress } from '../parameters/email-address.ts';
import { isNotGiven } from '../parameters/normalise-parameters.ts';
import type { Gender } from '../parameters/parse-parameters.ts';
import { NAME_MAX, ProfileValueSchema } from '../parameters/request-schemas.ts';
import type { Settings } from '../settings-schema.ts';
import type { SubscriberRecord, SubscriberStatus } from '../subscriber.ts';

/**
 * The subscriber of the original's API v2 (`original-v2.md`, "Shapes"; decisions part 11) and
 * its mapping to our record: first_name ↔ name, last_name ↔ surname, gender M/F/null, status
 * words, lists as `[{id, name}]`, extra fields as `[{id, value}]`, and the place (country,
 * region, city) and language, which only v2 shows.
 */

/** Status words of v2, by our letters; `complained` is ours (the original answers null). */
export const STATUS_WORDS = {
  S: 'not_confirmed',
  C: 'confirmed',
  U: 'unsubscribed',
  B: 'bounced',
  P: 'complained',
} as const satisfies Record<SubscriberStatus, string>;

/** A status word as v2 shows it. */
export type StatusWord = (typeof STATUS_WORDS)[SubscriberStatus];

/**
 * Words real clients of the original send for "confirmed" (`subscribed`: a public client
 * found sending it); read as `confirmed` ([v2.subscriber-upsert]).
 */
const STATUS_SYNONYMS: Readonly<Record<string, SubscriberStatus>> = { subscribed: 'C' };

/** Our letter of a status word; undefined for any other word. */
export function statusOfWord(word: string): SubscriberStatus | undefined {
  const synonym = Object.hasOwn(STATUS_SYNONYMS, word) ? STATUS_SYNONYMS[word] : undefined;
  if (synonym) return synonym;
  const entry = Object.entries(STATUS_WORDS).find(([, each]) => each === word);
  return entry?.[0] as SubscriberStatus | undefined;
}

/** The subscriber as v2 answers it. */
export const V2SubscriberSchema = v.pipe(
  v.strictObject({
    id: v.pipe(v.number(), v.integer(), v.minValue(1)),
    email: v.string(),
    first_name: v.string(),
    last_name: v.string(),
    gender: v.nullable(v.picklist(['M', 'F'])),
    country: v.string(),
    region: v.string(),
    city: v.string(),
    lists: v.array(v.strictObject({ id: v.number(), name: v.string() })),
    extra_fields: v.array(v.strictObject({ id: v.string(), value: v.string() })),
    status: v.picklist(Object.values(STATUS_WORDS)),
  }),
  v.title('V2Subscriber'),
);

/** The subscriber as v2 answers it. */
export type V2Subscriber = v.InferOutput<typeof V2SubscriberSchema>;

/**
 * One subscriber as `GET /subscribers/{id}` answers it (a keyed route): the v2 subscriber and,
 * ours, its consent evidence (null for a record saved before it was kept) ([v2.consent]).
 */
export const V2SubscriberDetailSchema = v.pipe(
  v.strictObject({ ...V2SubscriberSchema.entries, consent: v.nullable(ConsentSchema) }),
  v.title('V2SubscriberDetail'),
);

/** One subscriber with its consent evidence. */
export type V2SubscriberDetail = v.InferOutput<typeof V2SubscriberDetailSchema>;

/** A record as v2 shows it: only the lists it is on, only non-empty extra fields. */
export function toV2Subscriber(record: SubscriberRecord, settings: Settings): V2Subscriber {
  const names = new Map(settings.lists.map((list) => [list.id, list.name]));
  return {
    id: record.id,
    email: record.email,
    first_name: record.name,
    last_name: record.surname,
    gender: record.gender === 'm' ? 'M' : record.gender === 'f' ? 'F' : null,
    country: record.place?.country ?? '',
    region: record.place?.region ?? '',
    city: record.place?.city ?? '',
    // A list removed from the settings since keeps its id; it shows with an empty name.
    lists: record.lists.map((id) => ({ id, name: names.get(id) ?? '' })),
    extra_fields: Object.entries(record.profile)
      .filter(([, value]) => value !== '')
      .map(([id, value]) => ({ id, value })),
    status: STATUS_WORDS[record.status],
  };
}

/** Where a subscriber lives and what language it reads, as v2 takes and shows them. */
export interface Place {
  readonly country?: string;
  readonly region?: string;
  readonly city?: string;
}

/**
 * A v2 write's fields, validated: absent means "not given" (a `PUT` changes only what it
 * gives). `lists` adds, `unlists` removes; `profile` values of "" clear a field.
 */
export interface V2SubscriberChange {
  readonly email?: string;
  readonly name?: string;
  readonly surname?: string;
  readonly gender?: Gender;
  readonly status?: 'S' | 'C' | 'U';
  readonly lists: readonly number[];
  readonly unlists: readonly number[];
  readonly profile: Readonly<Record<string, string>>;
  readonly place: Place;
  readonly language?: string;
}

const CONTROL_CHARACTERS = /\p{Cc}/u;
const invalid = (message: string): NewsletterError => newsletterError('invalid_parameter', message);

/** A short text field: trimmed, at most `max` characters, no control characters. */
function text(name: string, value: unknown, max: number): string | NewsletterError {
  if (typeof value !== 'string') return invalid(`${name} must be a string`);
  const trimmed = value.trim();
  if (trimmed.length > max) return invalid(`${name} must be at most ${max} characters`);
  if (CONTROL_CHARACTERS.test(trimmed))
    return invalid(`${name} must not contain control characters`);
  return trimmed;
}

/** `lists` in any of v2's spellings: ids (negative: remove) or `{id, value: 0|1}`. */
function parseLists(
  value: unknown,
  settings: Settings,
): { add: number[]; remove: number[] } | NewsletterError {
  // Forms send `lists[]=1`, `lists=1` or PHP's `lists[0]=1`; JSON an array or an object.
  const items = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? Object.values(value)
      : [value];
  const add: number[] = [];
  const remove: number[] = [];
  for (const item of items) {
    let id: unknown = item;
    let on = true;
    if (typeof item === 'object' && item !== null) {
      const entry = item as { id?: unknown; value?: unknown };
      id = entry.id;
      on = !['0', 'false', ''].includes(
        String(entry.value ?? '1')
          .trim()
          .toLowerCase(),
      );
    }
    const number = typeof id === 'string' && /^\s*-?\d{1,9}\s*$/.test(id) ? Number(id) : id;
    if (typeof number !== 'number' || !Number.isInteger(number) || number === 0)
      return invalid('lists must contain list ids (numbers), or objects {id, value}');
    const listId = Math.abs(number);
    const removing = number < 0 || !on;
    // Removing an id no list has any more is how a deleted list's id leaves a subscriber.
    if (!removing && !settings.lists.some((list) => list.id === listId))
      return newsletterError('unknown_list', `lists: list ${listId} does not exist`);
    (removing ? remove : add).push(listId);
  }
  return { add, remove };
}

/** `extra_fields` as `[{id, value}]` (or an object of id → value, as forms send it). */
function parseExtraFields(
  value: unknown,
  settings: Settings,
): Record<string, string> | NewsletterError {
  const entries: [unknown, unknown][] = Array.isArray(value)
    ? value.map((item) =>
        typeof item === 'object' && item !== null
          ? [(item as { id?: unknown }).id, (item as { value?: unknown }).value]
          : [undefined, undefined],
      )
    : typeof value === 'object' && value !== null
      ? Object.entries(value)
      : [[undefined, undefined]];
  const profile: Record<string, string> = Object.create(null);
  for (const [rawId, rawValue] of entries) {
    if (typeof rawId !== 'string' && typeof rawId !== 'number')
      return invalid('extra_fields must be a list of {id, value}');
    const id = String(rawId);
    if (!settings.profile_fields.some((field) => field.id === id)) {
      if (settings.unknown_profile_fields === 'reject')
        return newsletterError(
          'unknown_profile_field',
          `extra_fields: ${id.slice(0, 40)} is not a field`,
        );
      continue;
    }
    const parsed = v.safeParse(v.nullable(ProfileValueSchema), rawValue ?? '');
    if (!parsed.success) return invalid(`extra_fields ${id} ${parsed.issues[0].message}`);
    profile[id] = parsed.output ?? '';
  }
  return profile;
}

const EMAIL = emailAddress();
const LANGUAGE = /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/;

/**
 * Validates `country` (two letters, kept upper case), `region`, `city` and `language` of a v2
 * write: one rule for `/subscribers` and the public `/subscriptions` ([v2.subscriptions]).
 * `place` is absent when none of the three is given.
 */
export function parseV2Place(
  raw: Readonly<Record<string, unknown>>,
): { place?: Place; language?: string } | NewsletterError {
  const given = (name: string): unknown => (isNotGiven(raw[name]) ? undefined : raw[name]);
  let place: Place | undefined;
  const country = given('country');
  if (country !== undefined) {
    if (typeof country !== 'string' || !/^\s*[A-Za-z]{2}\s*$/.test(country))
      return invalid('country must be a two-letter country code');
    place = { ...place, country: country.trim().toUpperCase() };
  }
  for (const name of ['region', 'city'] as const) {
    const value = given(name);
    if (value === undefined) continue;
    const parsed = text(name, value, NAME_MAX);
    if (typeof parsed !== 'string') return parsed;
    place = { ...place, [name]: parsed };
  }
  const language = given('language');
  if (language !== undefined && (typeof language !== 'string' || !LANGUAGE.test(language.trim())))
    return invalid('language must be a language code such as en or pt_BR');
  return {
    ...(place === undefined ? {} : { place }),
    ...(typeof language === 'string' ? { language: language.trim() } : {}),
  };
}

/**
 * Validates the body of a v2 `POST /subscribers` or `PUT /subscribers/{id|email}` against the
 * settings. `null` and "" mean not given (decisions part 1); anything malformed is a 400 that
 * names the field.
 */
export function parseV2SubscriberChange(
  raw: Readonly<Record<string, unknown>>,
  settings: Settings,
): V2SubscriberChange | NewsletterError {
  const given = (name: string): unknown => (isNotGiven(raw[name]) ? undefined : raw[name]);
  const change: {
    -readonly [K in keyof V2SubscriberChange]: V2SubscriberChange[K];
  } = { lists: [], unlists: [], profile: {}, place: {} };

  const email = given('email');
  if (email !== undefined) {
    const parsed = v.safeParse(EMAIL, email);
    if (!parsed.success) return newsletterError('invalid_email', parsed.issues[0].message);
    change.email = parsed.output;
  }
  for (const [from, to] of [
    ['first_name', 'name'],
    ['last_name', 'surname'],
  ] as const) {
    const value = given(from);
    if (value === undefined) continue;
    const parsed = text(from, value, NAME_MAX);
    if (typeof parsed !== 'string') return parsed;
    change[to] = parsed;
  }
  const gender = given('gender');
  if (gender !== undefined) {
    const letter = String(gender).trim().toLowerCase();
    if (!['m', 'f', 'n'].includes(letter)) return invalid('gender must be M, F or null');
    change.gender = letter as Gender;
  }
  const status = given('status');
  if (status !== undefined) {
    const letter = statusOfWord(String(status).trim());
    if (letter !== 'S' && letter !== 'C' && letter !== 'U')
      return invalid('status must be confirmed, not_confirmed or unsubscribed');
    change.status = letter;
  }
  const where = parseV2Place(raw);
  if (isNewsletterError(where)) return where;
  change.place = where.place ?? {};
  if (where.language !== undefined) change.language = where.language;
  const lists = given('lists') ?? given('lists[]');
  if (lists !== undefined) {
    const parsed = parseLists(lists, settings);
    if (isNewsletterError(parsed)) return parsed;
    change.lists = parsed.add;
    change.unlists = parsed.remove;
  }
  const extra = given('extra_fields');
  if (extra !== undefined) {
    const parsed = parseExtraFields(extra, settings);
    if (isNewsletterError(parsed)) return parsed;
    change.profile = parsed;
  }
  return change;
}

/** The record after a change: lists added then removed, fields given replaced. */
export function applyV2Change(
  record: SubscriberRecord,
  change: V2SubscriberChange,
  now: Date,
): SubscriberRecord {
  const lists = [...new Set([...record.lists, ...change.lists])]
    .filter((id) => !change.unlists.includes(id))
    .sort((a, b) => a - b);
  const profile: Record<string, string> = { ...record.profile };
  for (const [id, value] of Object.entries(change.profile)) {
    if (value === '') delete profile[id];
    else profile[id] = value;
  }
  const place = { ...record.place, ...change.place };
  const confirmsNow = change.status === 'C' && record.status !== 'C';
  // Only an `S` that was asked expires ([subscribe.unconfirmed-expiry]); any other status
  // set here keeps the record.
  const { expires_at: _expiry, ...kept } = record;
  const keepsExpiry = (change.status ?? record.status) === 'S';
  return {
    ...(keepsExpiry ? record : kept),
    ...(change.email === undefined ? {} : { email: change.email }),
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(change.surname === undefined ? {} : { surname: change.surname }),
    ...(change.gender === undefined ? {} : { gender: change.gender }),
    ...(change.status === undefined ? {} : { status: change.status }),
    ...(change.language === undefined ? {} : { language: change.language }),
    ...(Object.keys(place).length > 0 ? { place } : {}),
    lists,
    profile,
    updated: now.toISOString(),
    ...(confirmsNow ? { confirmed_at: now.toISOString() } : {}),
  };
}
