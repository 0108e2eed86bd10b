import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { RawParameters } from '../../domain/parameters/normalise-parameters.ts';
import { parseV2Place } from '../../domain/v2/v2-subscriber.ts';
import type { CallContext, Dependencies } from '../dependencies.ts';
import { subscribe } from '../subscribe.ts';

const LIST_FIELD = /^list_(\d{1,9})$/;

/** Fields `subscribe` does not take: v2's own, and the place, which parseV2Place reads. */
const NOT_PASSED = new Set(['optin', 'id', 'country', 'region', 'city', 'language']);

/**
 * The original's subscription fields as our `subscribe` takes them: `first_name`/`last_name`
 * (or `name`/`surname`), `gender` M/F, `lists` as ids (a negative id, an opt-out, asks
 * nothing of a subscription and is dropped) or `list_<id>` flags, `extra_fields` as
 * `[{id, value}]`. Anything else passes through, so our own spellings work too.
 */
export function subscriptionParameters(raw: RawParameters): RawParameters {
  const out: Record<string, unknown> = Object.create(null);
  const lists: unknown[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const flag = LIST_FIELD.exec(name);
    if (flag) {
      if (!['0', 'false', ''].includes(String(value).trim().toLowerCase())) lists.push(flag[1]);
      continue;
    }
    if (name === 'first_name') out.name = value;
    else if (name === 'last_name') out.surname = value;
    else if (name === 'lists' || name === 'lists[]') {
      for (const item of Array.isArray(value) ? value : [value]) {
        const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : item;
        if (!(typeof id === 'number' && id < 0) && !/^\s*-/.test(String(id))) lists.push(id);
      }
    } else if (name === 'extra_fields' && Array.isArray(value)) {
      const profile: Record<string, unknown> = Object.create(null);
      for (const item of value) {
        if (typeof item === 'object' && item !== null) {
          const field = item as { id?: unknown; value?: unknown };
          profile[String(field.id)] = field.value;
        }
      }
      out.profile = profile;
    } else if (!NOT_PASSED.has(name)) out[name] = value;
  }
  if (lists.length > 0) out.lists = lists;
  return out;
}

/**
 * `POST /subscriptions` ([v2.subscriptions]): our `subscribe`, every rule of it, with the
 * original's fields. Keyless: the public-form rules, the rate limit, the constant answer and
 * the settings' opt-in mode; `optin: "single"` is refused (403) unless the settings are single
 * opt-in, or anyone could confirm a stranger's address. With a key (`write`), the trusted
 * subscribe, in the mode `optin` asks for (`single`, or `double` for anything else given).
 * Answers `{}` with 201 either way, as the original.
 */
export async function subscribeV2(
  deps: Dependencies,
  raw: RawParameters,
  context: CallContext,
): Promise<Record<string, never> | NewsletterError> {
  const optin =
    raw.optin === undefined || raw.optin === null || raw.optin === '' ? undefined : raw.optin;
  const settings = await deps.settings();
  if (!context.trusted && optin === 'single' && settings.opt_in !== 'single') {
    return newsletterError(
      'forbidden',
      'optin: single opt-in needs a key, or single opt-in in the settings',
    );
  }
  const mode = optin === undefined ? settings.opt_in : optin === 'single' ? 'single' : 'double';
  // The settings read once: a trusted call's in the mode it asked for.
  const callSettings = context.trusted ? { ...settings, opt_in: mode } : settings;
  const callDeps: Dependencies = { ...deps, settings: async () => callSettings };
  const where = parseV2Place(raw);
  if (isNewsletterError(where)) return where;
  const answer = await subscribe(callDeps, subscriptionParameters(raw), context, where);
  return isNewsletterError(answer) ? answer : {};
}
