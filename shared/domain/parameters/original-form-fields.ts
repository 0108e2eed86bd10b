import { type NewsletterError, newsletterError } from '../errors.ts';
import { isNotGiven, type RawParameters } from './normalise-parameters.ts';

/**
 * The field names the original plugin's subscription forms post, read as our parameters
 * ([params.original-form-fields]), so a form embedded on a site subscribes people once its
 * `action` points here. The names are the plugin's; the rules stay ours.
 */
const SCALAR_ALIASES: Readonly<Record<string, string>> = {
  ne: 'email',
  nn: 'name',
  ns: 'surname',
  nx: 'gender',
  ny: 'privacy',
};

/** `nl[]`, `nl[0]` and a bare `nl`: the original's list checkboxes and hidden list fields. */
const LIST_ALIAS = /^nl(?:\[(\d*)\])?$/;
/** Our spellings of lists (normalise-parameters.ts): `lists`, `lists[]`, `lists[3]`. */
const LIST_KEY = /^lists(?:\[\d*\])?$/;
/** `np<N>`: the original's numbered profile fields. */
const PROFILE_ALIAS = /^np(\d{1,3})$/;

/** Whether a raw parameter is given (present and not null or ""), empty lists included. */
function given(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => !isNotGiven(item));
  return !isNotGiven(value);
}

/** Whether the call gives profile field `id` in one of our spellings. */
function givesProfileField(raw: RawParameters, id: string): boolean {
  if (given(raw[`profile_${id}`]) || given(raw[`profile[${id}]`])) return true;
  const profile = raw.profile;
  return (
    typeof profile === 'object' &&
    profile !== null &&
    !Array.isArray(profile) &&
    given((profile as Record<string, unknown>)[id])
  );
}

const both = (alias: string, ours: string): NewsletterError =>
  newsletterError(
    'invalid_parameter',
    `${alias} and ${ours} are the same parameter; send only one of them`,
  );

/**
 * Renames the original's form fields to ours. `nl` may also carry several ids as `1|3`. A
 * parameter given both ways is a 400, even with equal values: which one the caller meant
 * cannot be told, and guessing could subscribe someone to the wrong lists.
 */
export function foldOriginalFormFields(raw: RawParameters): RawParameters | NewsletterError {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const listValues: unknown[] = [];
  let listAlias: string | undefined;
  for (const [key, value] of Object.entries(raw)) {
    const scalar = Object.hasOwn(SCALAR_ALIASES, key) ? SCALAR_ALIASES[key] : undefined;
    if (scalar !== undefined) {
      if (!given(value)) continue;
      if (given(raw[scalar])) return both(key, scalar);
      out[scalar] = value;
      continue;
    }
    if (LIST_ALIAS.test(key)) {
      if (!given(value)) continue;
      listAlias ??= key;
      for (const item of Array.isArray(value) ? value : [value]) {
        // The original's hidden list field may hold several ids: `nl=1|3`.
        if (typeof item === 'string') listValues.push(...item.split('|'));
        else listValues.push(item);
      }
      continue;
    }
    const profile = PROFILE_ALIAS.exec(key);
    if (profile) {
      const id = profile[1] ?? '';
      if (!given(value)) continue;
      if (givesProfileField(raw, id)) return both(key, `profile_${id}`);
      out[`profile_${id}`] = value;
      continue;
    }
    // An empty twin of an alias already read (`email=""` beside `ne`) is "not given".
    if (Object.hasOwn(out, key) && !given(value)) continue;
    out[key] = value;
  }
  if (listAlias !== undefined) {
    const ours = Object.keys(raw).find((key) => LIST_KEY.test(key) && given(raw[key]));
    if (ours !== undefined) return both(listAlias, ours);
    out['lists[]'] = listValues;
  }
  return out;
}
