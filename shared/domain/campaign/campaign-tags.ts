/**
 * Personalisation tags of campaign content, the original's ([campaign.tags]): `{name}`,
 * `{surname}`, `{email}`, `{unsubscription_url}` and `{profile_<id>}` for a profile field the
 * settings define.
 *
 * Grammar: a tag is `{`, a tag name, `}` with nothing else between the braces, and a tag name is
 * an ASCII letter followed by ASCII letters, digits and `_` (`[A-Za-z][A-Za-z0-9_]*`),
 * case-sensitive. Every other brace is text and passes through unchanged: CSS (`a { color: red }`,
 * `a{color:red}`, `@media (…){…}`) always has a space, a colon or a non-letter inside its braces,
 * and `{0}`, `{ name }` or `{}` are not tags either. In `{{name}}` the inner `{name}` is a tag and
 * the outer braces stay.
 */

const _TAG = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

// `{ name }`: a tag name with spaces inside its braces, which the grammar leaves as text.
const _SPACED_TAG = /\{(?:\s+([A-Za-z][A-Za-z0-9_]*)\s*|([A-Za-z][A-Za-z0-9_]*)\s+)\}/g;

/** The tags every campaign knows, besides the profile fields'. */
export const BASE_TAGS = ['name', 'surname', 'email', 'unsubscription_url'] as const;

/** A tag name of BASE_TAGS. */
export type BaseTag = (typeof BASE_TAGS)[number];

/** The prefix of a profile field's tag: `{profile_city}` for the field `city`. */
export const PROFILE_TAG_PREFIX = 'profile_';

/** One tag in a text: its name and where it stands (`end` exclusive). */
export interface TagOccurrence {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

/** Every tag in `text`, in order. */
export function findTags(text: string): TagOccurrence[] {
  return [...text.matchAll(_TAG)].map((match) => ({
    name: match[1] ?? '',
    start: match.index,
    end: match.index + match[0].length,
  }));
}

/** Whether `text` holds the tag `name`. */
export function hasTag(text: string, name: string): boolean {
  return findTags(text).some((tag) => tag.name === name);
}

/**
 * Replaces every tag in one pass: what `replace` returns is never scanned again, so a value that
 * looks like a tag stays text. Text between tags is left exactly as it is.
 */
export function replaceTags(text: string, replace: (name: string, tag: string) => string): string {
  return text.replace(_TAG, (tag: string, name: string) => replace(name, tag));
}

/** The profile field id of a `profile_<id>` tag name; undefined for any other name. */
export function profileFieldOf(name: string): string | undefined {
  return name.startsWith(PROFILE_TAG_PREFIX) && name.length > PROFILE_TAG_PREFIX.length
    ? name.slice(PROFILE_TAG_PREFIX.length)
    : undefined;
}

/** Whether a tag name is one the content may use with these profile fields. */
export function isKnownTag(name: string, profileFieldIds: readonly string[]): boolean {
  if ((BASE_TAGS as readonly string[]).includes(name)) return true;
  const field = profileFieldOf(name);
  return field !== undefined && profileFieldIds.includes(field);
}

/** Known tag names written with spaces inside their braces (`{ name }`), which stay text. */
export function spacedTags(text: string, profileFieldIds: readonly string[]): string[] {
  const found = [...text.matchAll(_SPACED_TAG)]
    .filter((match) => isKnownTag(match[1] ?? match[2] ?? '', profileFieldIds))
    .map((match) => match[0]);
  return [...new Set(found)];
}
