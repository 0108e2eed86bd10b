import { randomInt } from 'node:crypto';
import * as v from 'valibot';

/**
 * People who run the newsletter and sign in to the console as themselves (Amazon Cognito).
 * A person's role is the Cognito group they belong to: `editor` writes and sends issues and
 * reads their reports; `admin` may also do everything a write key may (subscribers, lists),
 * and change the settings and the people ([console.roles]).
 */

/** The roles, least first. */
export const PERSON_ROLES = ['editor', 'admin'] as const;

/** A person's role: the name of their Cognito group. */
export type PersonRole = (typeof PERSON_ROLES)[number];

/** Whether a text names a role. */
export function isPersonRole(value: unknown): value is PersonRole {
  return typeof value === 'string' && (PERSON_ROLES as readonly string[]).includes(value);
}

/**
 * The role an ID token's `cognito:groups` gives: `admin` when one of the groups is, else
 * `editor` when one is, else none (a person in no group may do nothing).
 */
export function roleOfGroups(groups: unknown): PersonRole | undefined {
  if (!Array.isArray(groups)) return undefined;
  if (groups.includes('admin')) return 'admin';
  if (groups.includes('editor')) return 'editor';
  return undefined;
}

/** Whether `role` is at least `needed` (an admin may do what an editor may). */
export function roleCovers(role: PersonRole, needed: PersonRole): boolean {
  return PERSON_ROLES.indexOf(role) >= PERSON_ROLES.indexOf(needed);
}

/** A signed-in person as a request presents them (from a verified ID token). */
export interface Person {
  readonly email: string;
  readonly role: PersonRole;
}

/** A person as the user pool lists them. */
export interface PersonEntry {
  readonly email: string;
  /** Their role; `none` for someone in neither group (they may do nothing). */
  readonly role: PersonRole | 'none';
  /** Cognito's status: FORCE_CHANGE_PASSWORD until their first sign-in, then CONFIRMED. */
  readonly status: string;
  /** ISO time the person was added. */
  readonly created: string;
}

const PASSWORD_CLASSES = [
  'ABCDEFGHJKLMNPQRSTUVWXYZ',
  'abcdefghijkmnopqrstuvwxyz',
  '23456789',
  '!#%+-=?@^_',
] as const;

/**
 * A temporary password for a person just added, shown once ([people.manage]): 20 characters,
 * every class the pool's policy asks for (upper and lower case, a digit, a symbol), without
 * look-alikes (O/0, l/1), about 120 bits. They choose their own at first sign-in.
 */
export function temporaryPassword(pick: (max: number) => number = randomInt): string {
  const all = PASSWORD_CLASSES.join('');
  const chars = PASSWORD_CLASSES.map((set) => set[pick(set.length)] ?? '');
  while (chars.length < 20) chars.push(all[pick(all.length)] ?? '');
  // Shuffle, so the classes are not always in the same places.
  for (let i = chars.length - 1; i > 0; i -= 1) {
    const j = pick(i + 1);
    [chars[i], chars[j]] = [chars[j] ?? '', chars[i] ?? ''];
  }
  return chars.join('');
}

/** `POST /people`'s body, for the API description (manage-people.ts validates it). */
export const PersonWriteSchema = v.looseObject({
  email: v.string(),
  role: v.picklist(PERSON_ROLES),
});

/** A person as `GET /people` lists them. */
export const PersonEntrySchema = v.pipe(
  v.object({
    email: v.string(),
    role: v.picklist([...PERSON_ROLES, 'none']),
    status: v.string(),
    created: v.string(),
  }),
  v.title('Person'),
);

/** `POST /people`'s answer: the temporary password, shown this once. */
export const AddedPersonSchema = v.pipe(
  v.object({ email: v.string(), role: v.picklist(PERSON_ROLES), temporary_password: v.string() }),
  v.title('AddedPerson'),
);
