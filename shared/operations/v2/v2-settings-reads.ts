import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { RawParameters } from '../../domain/parameters/normalise-parameters.ts';
import { type Page, parsePage } from '../../domain/v2/paging.ts';
import type { V2ExtraField, V2List } from '../../domain/v2/v2-shapes.ts';
import type { Dependencies } from '../dependencies.ts';

/** A page of a collection and how many items it has in all (the WordPress headers). */
export interface V2Collection<T> {
  readonly items: T[];
  readonly total: number;
  readonly page: Page;
}

/** One page of a collection held whole (lists, fields: at most a thousand, from the settings). */
function pageOf<T>(all: readonly T[], params: RawParameters): V2Collection<T> | NewsletterError {
  const page = parsePage(params);
  if (isNewsletterError(page)) return page;
  const start = (page.page - 1) * page.perPage;
  return { items: all.slice(start, start + page.perPage), total: all.length, page };
}

type SettingsOnly = Pick<Dependencies, 'settings'>;

/** Where `GET /lists` finds its member counts: the subscriber counts. */
export interface ListMemberCounts {
  confirmedMembers(lists: readonly number[], now: Date): Promise<Map<number, number> | undefined>;
}

/**
 * `GET /lists`: every list, private ones included (keyed callers only), by id, each with its
 * confirmed members when the subscriber counts are complete ([v2.list-members]).
 */
export async function listV2Lists(
  deps: SettingsOnly & Pick<Dependencies, 'now'> & { readonly members: ListMemberCounts },
  params: RawParameters,
): Promise<V2Collection<V2List> | NewsletterError> {
  const { lists } = await deps.settings();
  const page = pageOf(lists, params);
  if (isNewsletterError(page)) return page;
  const members = await deps.members.confirmedMembers(
    page.items.map((list) => list.id),
    deps.now(),
  );
  return {
    ...page,
    items: page.items.map(({ id, name }) => {
      const count = members?.get(id);
      return { id, name, ...(count === undefined ? {} : { subscribers: count }) };
    }),
  };
}

/** `GET /lists/{id}`; an unknown id answers the original's `List does not exist`. */
export async function getV2List(
  deps: SettingsOnly,
  id: unknown,
): Promise<V2List | NewsletterError> {
  const { lists } = await deps.settings();
  const list = lists.find((each) => String(each.id) === String(id));
  return list
    ? { id: list.id, name: list.name }
    : newsletterError('not_found', 'List does not exist');
}

/** `GET /extrafields`: the profile fields of the settings. */
export async function listV2ExtraFields(
  deps: SettingsOnly,
  params: RawParameters,
): Promise<V2Collection<V2ExtraField> | NewsletterError> {
  const { profile_fields: fields } = await deps.settings();
  return pageOf(
    fields.map(({ id, name }) => ({ id, name })),
    params,
  );
}

/** `GET /extrafields/{id}`. */
export async function getV2ExtraField(
  deps: SettingsOnly,
  id: unknown,
): Promise<V2ExtraField | NewsletterError> {
  const { profile_fields: fields } = await deps.settings();
  const field = fields.find((each) => each.id === String(id));
  return field
    ? { id: field.id, name: field.name }
    : newsletterError('not_found', 'Extra field does not exist');
}
