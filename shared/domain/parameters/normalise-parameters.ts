/**
 * Folds the spellings real clients send into one shape before validation (decisions parts 1
 * and 2):
 * - `lists`: `lists[]=1&lists[]=2`, `lists=1`, PHP's `lists[0]=1&lists[1]=3`, a JSON array, and
 *   a JSON object with numeric keys (a PHP array encoded as JSON) all become one list.
 * - `profile`: `profile[3]=x`, `"profile": {"3": "x"}` and `profile_3=x` all set field 3.
 * - `null` and `""` mean "not given" for every parameter, so they are dropped here.
 * Everything else passes through unchanged, so unknown parameters are ignored later.
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

const LIST_KEY = /^lists(?:\[(\d*)\])?$/;
const PROFILE_BRACKET = /^profile\[([^\]]*)\]$/;
const PROFILE_PREFIX = /^profile_(.+)$/;

/** "Not given": absent, null, or an empty string (an unfilled form field). */
export const isNotGiven = (value: unknown): boolean =>
  value === undefined || value === null || value === '';

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** A JSON object whose keys are all array indexes: a PHP array, in index order. */
function phpArray(value: unknown): unknown[] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  if (entries.length === 0 || !entries.every(([key]) => /^\d+$/.test(key))) return undefined;
  return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, item]) => item);
}

/** Folds `lists` and `profile` spellings and drops what is not given; see the module comment. */
export function normaliseParameters(raw: RawParameters): FoldedParameters {
  const fields: Record<string, unknown> = {};
  // Each spelling of lists, in the order it came, with its PHP index where it had one.
  const listParts: { index: number; values: unknown[] }[] = [];
  // A null prototype keeps `__proto__` and friends as plain keys instead of prototype writes.
  let profile: Record<string, unknown> | undefined;
  const setProfile = (id: string, value: unknown): void => {
    profile ??= Object.create(null) as Record<string, unknown>;
    if (!isNotGiven(value)) profile[id] = value;
  };
  let problem: string | undefined;

  for (const [key, value] of Object.entries(raw)) {
    const list = LIST_KEY.exec(key);
    if (list) {
      if (isNotGiven(value)) continue;
      const values = phpArray(value) ?? asArray(value);
      // An empty value is a form's unticked placeholder, not a list id.
      listParts.push({
        index: list[1] ? Number(list[1]) : Number.POSITIVE_INFINITY,
        values: values.filter((item) => !isNotGiven(item)),
      });
      continue;
    }
    if (key === 'profile') {
      if (isNotGiven(value)) continue;
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
    if (!isNotGiven(value)) fields[key] = value;
  }
  // `lists[1]=3&lists[0]=1` is the list [1, 3]: PHP indexes order the values; the other
  // spellings keep their place after the indexed ones.
  const lists =
    listParts.length === 0
      ? undefined
      : listParts
          .map((part, order) => ({ ...part, order }))
          .sort((a, b) => a.index - b.index || a.order - b.order)
          .flatMap((part) => part.values);
  return {
    fields,
    ...(lists === undefined ? {} : { lists }),
    ...(profile === undefined ? {} : { profile }),
    ...(problem === undefined ? {} : { problem }),
  };
}
