import type { ListUsage } from '../../adapters/store/list-usage-port.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { RawParameters } from '../../domain/parameters/normalise-parameters.ts';
import type { V2List } from '../../domain/v2/v2-shapes.ts';
import {
  createList,
  deleteList,
  editList,
  type ListChange,
  type ListDependencies,
} from '../lists/manage-lists.ts';

const invalid = (message: string): NewsletterError => newsletterError('invalid_parameter', message);

/** `name`, `private`, `preassigned` of a list write, as JSON or a form sends them. */
function listChange(raw: RawParameters): ListChange | NewsletterError {
  const change: { -readonly [K in keyof ListChange]: ListChange[K] } = {};
  if (raw.name !== undefined && raw.name !== null) {
    if (typeof raw.name !== 'string') return invalid('name must be a string');
    change.name = raw.name;
  }
  for (const name of ['private', 'preassigned'] as const) {
    const value = raw[name];
    if (value === undefined || value === null || value === '') continue;
    const word = String(value).trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(word)) change[name] = true;
    else if (['false', '0', 'no', 'off'].includes(word)) change[name] = false;
    else return invalid(`${name} must be true or false`);
  }
  return change;
}

/** `POST /lists` (ours): a new list, the next id, as `lists create` ([v2.lists-write]). */
export async function createV2List(
  deps: ListDependencies,
  raw: RawParameters,
): Promise<V2List | NewsletterError> {
  const change = listChange(raw);
  if (isNewsletterError(change)) return change;
  if (change.name === undefined || change.name.trim() === '')
    return newsletterError('missing_parameter', 'name is required');
  const created = await createList(deps, change);
  return isNewsletterError(created) ? created : { id: created.list.id, name: created.list.name };
}

/** A list id from the path; anything else is no list. */
function listIdOf(rawId: unknown): number | NewsletterError {
  return typeof rawId === 'string' && /^[1-9]\d{0,8}$/.test(rawId)
    ? Number(rawId)
    : newsletterError('not_found', 'List does not exist');
}

/** `PUT /lists/{id}` (ours): renames a list or changes its flags, as `lists edit`. */
export async function editV2List(
  deps: ListDependencies,
  rawId: unknown,
  raw: RawParameters,
): Promise<V2List | NewsletterError> {
  const id = listIdOf(rawId);
  if (isNewsletterError(id)) return id;
  const change = listChange(raw);
  if (isNewsletterError(change)) return change;
  if (Object.keys(change).length === 0)
    return newsletterError(
      'missing_parameter',
      'nothing to change: give name, private or preassigned',
    );
  const edited = await editList(deps, id, change);
  return isNewsletterError(edited) ? edited : { id: edited.list.id, name: edited.list.name };
}

/**
 * `DELETE /lists/{id}` (ours): deletes a list no issue still to be sent names, as `lists
 * delete` ([v2.lists-delete]); answers `"Deleted"`, as the original's subscriber `DELETE`.
 */
export async function deleteV2List(
  deps: ListDependencies & { readonly usage: ListUsage },
  rawId: unknown,
): Promise<'Deleted' | NewsletterError> {
  const id = listIdOf(rawId);
  if (isNewsletterError(id)) return id;
  const deleted = await deleteList(deps, id);
  return isNewsletterError(deleted) ? deleted : 'Deleted';
}
