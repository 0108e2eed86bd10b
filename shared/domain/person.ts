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
