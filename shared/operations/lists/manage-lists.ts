import type { SSMClient } from '@aws-sdk/client-ssm';
import {
  readSettings,
  type SettingsWrite,
  writeSettings,
} from '../../adapters/parameters/settings-document.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import { SettingsError } from '../../domain/parse-settings.ts';

/**
 * Creating and changing lists ([v2.lists-write]): one implementation for the CLI (`lists
 * create`, `lists edit`) and API v2 (`POST /lists`, `PUT /lists/{id}`). Lists live in the
 * settings document; a change edits the document as written (defaults stay implicit),
 * validates it with the functions' own rules and writes it back.
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

type Document = { lists: Record<string, unknown>[] } & Record<string, unknown>;

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
  change: (document: Document) => Record<string, unknown> | NewsletterError,
): Promise<ListWritten | NewsletterError> {
  const stored = await readSettings(deps.ssm, deps.parameter);
  if (!stored)
    return newsletterError(
      'internal_error',
      `The settings parameter ${deps.parameter} does not exist.`,
    );
  const document = structuredClone(stored.document) as Document;
  const list = change(document);
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
 * Adds a list: the id given, or one more than the highest. An id that exists is refused
 * (409); so is any list the settings' rules refuse (a name of 1-100 characters), as a 400.
 */
export function createList(
  deps: ListDependencies,
  change: ListChange & { readonly id?: number },
): Promise<ListWritten | NewsletterError> {
  return edit(deps, (document) => {
    const ids = document.lists.map((list) => Number(list.id));
    const id = change.id ?? Math.max(0, ...ids) + 1;
    if (ids.includes(id)) return newsletterError('invalid_state', `List ${id} already exists.`);
    const list: Record<string, unknown> = { id, name: '' };
    applyChange(list, { private: false, preassigned: false, ...change });
    document.lists.push(list);
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
