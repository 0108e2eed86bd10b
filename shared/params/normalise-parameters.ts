/**
 * Folds the spellings the interface allows into one shape before validation:
 * `lists[]=1&lists[]=2`, `lists=1` and `"lists": [1, 2]` become `lists`; `profile[3]=x`,
 * `"profile": {"3": "x"}` and `profile_3=x` become `profile`. Everything else passes through
 * unchanged, so unknown parameters are ignored later rather than here.
 */

/** Raw parameters as they arrive from JSON, a form, a query string or a direct call. */
export type RawParameters = Readonly<Record<string, unknown>>;

/** Parameters after folding the alternative spellings. */
export interface FoldedParameters {
  readonly fields: Readonly<Record<string, unknown>>;
  /** Present when any spelling of `lists` was given. */
  readonly lists?: readonly unknown[];
  /** Present when any spelling of profile fields was given; keys are field ids. */
  readonly profile?: Readonly<Record<string, unknown>>;
  /** A parameter that cannot be folded, e.g. `profile` given as a string. */
  readonly problem?: string;
}

const PROFILE_BRACKET = /^profile\[([^\]]*)\]$/;
const PROFILE_PREFIX = /^profile_(.+)$/;

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** Folds `lists` and `profile` spellings; see the module comment. */
export function normaliseParameters(raw: RawParameters): FoldedParameters {
  const fields: Record<string, unknown> = {};
  let lists: unknown[] | undefined;
  // A null prototype keeps `__proto__` and friends as plain keys instead of prototype writes.
  let profile: Record<string, unknown> | undefined;
  const setProfile = (id: string, value: unknown): void => {
    profile ??= Object.create(null) as Record<string, unknown>;
    profile[id] = value;
  };
  let problem: string | undefined;

  for (const [key, value] of Object.entries(raw)) {
    if (key === 'lists' || key === 'lists[]') {
      // An empty value is a form's unticked placeholder, not a list id.
      lists = [...(lists ?? []), ...asArray(value).filter((item) => item !== '')];
      continue;
    }
    if (key === 'profile') {
      if (Array.isArray(value) && value.length === 0) {
        // PHP clients serialise an empty associative array as [].
        profile ??= Object.create(null) as Record<string, unknown>;
      } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        for (const [id, fieldValue] of Object.entries(value)) setProfile(id, fieldValue);
      } else {
        problem = 'profile must be an object of field ids to values';
      }
      continue;
    }
    const bracket = PROFILE_BRACKET.exec(key) ?? PROFILE_PREFIX.exec(key);
    if (bracket) {
      setProfile(bracket[1] ?? '', value);
      continue;
    }
    fields[key] = value;
  }
  return {
    fields,
    ...(lists === undefined ? {} : { lists }),
    ...(profile === undefined ? {} : { profile }),
    ...(problem === undefined ? {} : { problem }),
  };
}
