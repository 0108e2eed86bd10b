/**
 * Personalisation tags of campaign content, the original's ([campaign.tags]): `{name}`,
 * `{surname}`, `{email}`, `{unsubscription_url}` and `{profile_<id>}` for a profile field
 * defined in the settings.
 *
 * Grammar: a tag is `{`, a tag name, `}`, where a tag name is a letter or `_` followed by
 * letters, digits and `_` (`[A-Za-z_][A-Za-z0-9_]*`), nothing else between the braces. Any
 * other brace is text: CSS such as `a { color: red }` or `a{color:red}` has spaces or a colon
 * inside its braces and passes through unchanged.
 */

/** A brace pair around a tag name; global, for scanning. */
export const TAG = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The tags every campaign knows, besides the profile fields'. */
export const BASE_TAGS = ['name', 'surname', 'email', 'unsubscription_url'] as const;

/** The prefix of a profile field's tag: `{profile_city}` for the field `city`. */
export const PROFILE_TAG_PREFIX = 'profile_';

/** The tag names used in `text`, each once, in order of appearance. */
export function tagNames(text: string): string[] {
  return [...new Set([...text.matchAll(TAG)].map((match) => match[1] ?? ''))];
}

/** Whether a tag name is one the content may use with these profile fields. */
export function isKnownTag(name: string, profileFieldIds: readonly string[]): boolean {
  if ((BASE_TAGS as readonly string[]).includes(name)) return true;
  return (
    name.startsWith(PROFILE_TAG_PREFIX) &&
    profileFieldIds.includes(name.slice(PROFILE_TAG_PREFIX.length))
  );
}
