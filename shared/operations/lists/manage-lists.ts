import type { SSMClient } from '@aws-sdk/client-ssm';
import {
  readSettings,
  type SettingsWrite,
  writeSettings,
} from '../../adapters/parameters/settings-document.ts';
import type { ListUsage } from '../../adapters/store/list-usage-port.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import { SettingsError } from '../../domain/parse-settings.ts';

/**
 * Creating, changing and deleting lists ([v2.lists-write], [v2.lists-delete]): one
 * implementation for the CLI (`lists create`, `lists edit`, `lists delete`) and API v2 (`POST
 * /lists`, `PUT` and `DELETE /lists/{id}`). Lists live in the settings document; a change edits
 * the document as written (defaults stay implicit), validates it with the functions' own rules
 * and writes it back.
 */

/** Where the settings document is read and written. */
export interface ListDependencies {
  readonly ssm: SSMClient;
  readonly parameter: string;
}

/** What a list change gives; absent fields stay as they are (create: off). */
export interface ListChange {
  readonly name?: string;
  readonly private?: boolean;
  readonly preassigned?: boolean;
}

/** A list as stored, and the write that stored it. */
export interface ListWritten {
  readonly list: {
    readonly id: number;
    readonly name: string;
    readonly private: boolean;
    readonly preassigned: boolean;
  };
  readonly written: SettingsWrite;
  /** The version read; a write whose version is not one more means someone wrote between. */
  readonly readVersion: number;
}

type Document = { lists: Record<string, unknown>[]; next_list_id?: unknown } & Record<
  string,
  unknown
>;

/** The lowest id a new list may take: past every list there is, and every one deleted. */
function nextListId(document: Document): number {
  const highest = Math.max(0, ...document.lists.map((list) => Number(list.id)));
  const kept = typeof document.next_list_id === 'number' ? document.next_list_id : 1;
  return Math.max(highest + 1, kept);
}

/** Sets a flag; `false` is the default, so it is left out of the document. */
function setFlag(list: Record<string, unknown>, key: 'private' | 'preassigned', on: boolean): void {
  if (on) list[key] = true;
  else delete list[key];
}

function applyChange(list: Record<string, unknown>, change: ListChange): void {
  if (change.name !== undefined) list.name = change.name.trim();
  if (change.private !== undefined) setFlag(list, 'private', change.private);
  if (change.preassigned !== undefined) setFlag(list, 'preassigned', change.preassigned);
}

async function edit(
  deps: ListDependencies,
  change: (
    document: Document,
  ) =>
    | Record<string, unknown>
    | NewsletterError
    | Promise<Record<string, unknown> | NewsletterError>,
): Promise<ListWritten | NewsletterError> {
  const stored = await readSettings(deps.ssm, deps.parameter);
  if (!stored)
    return newsletterError(
      'internal_error',
      `The settings parameter ${deps.parameter} does not exist.`,
    );
  const document = structuredClone(stored.document) as Document;
  const list = await change(document);
  if (isNewsletterError(list)) return list;
  try {
    const written = await writeSettings(deps.ssm, deps.parameter, document);
    return {
      list: {
        id: Number(list.id),
        name: String(list.name),
        private: list.private === true,
        preassigned: list.preassigned === true,
      },
      written,
      readVersion: stored.version,
    };
  } catch (error) {
    // The functions' own validation refused the document: say what, change nothing.
    if (error instanceof SettingsError) return newsletterError('invalid_parameter', error.message);
    throw error;
  }
}

/**
 * Adds a list: the id given, or one more than the highest, and past every deleted list's
 * (`next_list_id`, [v2.lists-delete]). An id that exists is refused (409), and so is an id
 * below `next_list_id`: it may be a deleted list's, which its former members still carry. A
 * list the settings' rules refuse (a name of 1-100 characters) is a 400.
 */
export function createList(
  deps: ListDependencies,
  change: ListChange & { readonly id?: number },
): Promise<ListWritten | NewsletterError> {
  return edit(deps, (document) => {
    const ids = document.lists.map((list) => Number(list.id));
    const next = nextListId(document);
    const id = change.id ?? next;
    if (ids.includes(id)) return newsletterError('invalid_state', `List ${id} already exists.`);
    if (document.next_list_id !== undefined && id < next)
      return newsletterError(
        'invalid_state',
        `List ids below ${next} are not given again: ${id} may be a deleted list's, which its former members still carry.`,
      );
    const list: Record<string, unknown> = { id, name: '' };
    applyChange(list, { private: false, preassigned: false, ...change });
    document.lists.push(list);
    if (document.next_list_id !== undefined) document.next_list_id = Math.max(next, id + 1);
    return list;
  });
}

/** Changes a list's name and flags; an unknown list is a 404. */
export function editList(
  deps: ListDependencies,
  id: number,
  change: ListChange,
): Promise<ListWritten | NewsletterError> {
  return edit(deps, (document) => {
    const list = document.lists.find((candidate) => Number(candidate.id) === id);
    if (!list) return newsletterError('not_found', 'List does not exist');
    applyChange(list, change);
    return list;
  });
}

/** The most issue ids a refusal names. */
const NAMED_ISSUES = 10;

/**
 * Deletes a list ([v2.lists-delete]): refused (409 `list_in_use`, naming them) while an issue
 * still to be sent (draft, scheduled, sending, paused) names it, since it would send to the
 * list or fail to; an unknown list is a 404. The settings keep `next_list_id` past it, so its
 * id is never given to another list; its members keep the id, which no list has any more.
 */
export function deleteList(
  deps: ListDependencies & { readonly usage: ListUsage },
  id: number,
): Promise<ListWritten | NewsletterError> {
  return edit(deps, async (document) => {
    const index = document.lists.findIndex((candidate) => Number(candidate.id) === id);
    const list = document.lists[index];
    if (!list) return newsletterError('not_found', 'List does not exist');
    const issues = await deps.usage.unsentIssuesNaming(id);
    if (issues.length > 0) {
      const named = issues.slice(0, NAMED_ISSUES).join(', ');
      const more = issues.length > NAMED_ISSUES ? ` and ${issues.length - NAMED_ISSUES} more` : '';
      return newsletterError(
        'list_in_use',
        `Newsletters not sent yet go to list ${id} (${named}${more}): send or cancel them, or change their lists, first.`,
      );
    }
    document.next_list_id = nextListId(document);
    document.lists.splice(index, 1);
    return list;
  });
}
