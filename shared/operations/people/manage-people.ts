import * as v from 'valibot';
import type { PeopleDirectory } from '../../adapters/people/people-directory-port.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';
import { emailAddress } from '../../domain/parameters/email-address.ts';
import {
  isPersonRole,
  PERSON_ROLES,
  type PersonEntry,
  type PersonRole,
  temporaryPassword,
} from '../../domain/person.ts';

/** What managing people uses: the user pool, and how to make a temporary password. */
export interface PeopleDependencies {
  readonly people: PeopleDirectory;
  readonly newPassword?: () => string;
}

/** A person just added: the temporary password exists nowhere else (shown once). */
export interface AddedPerson {
  readonly email: string;
  readonly role: PersonRole;
  readonly temporary_password: string;
}

const Email = emailAddress();

function parseEmail(value: unknown): string | NewsletterError {
  const parsed = v.safeParse(Email, value);
  return parsed.success
    ? parsed.output
    : newsletterError('invalid_parameter', parsed.issues[0]?.message ?? 'email is invalid');
}

/**
 * Adds a person to the console ([people.manage]): a valid address, a role (`editor` or
 * `admin`), a temporary password made here and answered once; they set their own at their first
 * sign-in. The CLI's `people add` and `POST /people` both call this.
 */
export async function addPerson(
  deps: PeopleDependencies,
  input: { readonly email?: unknown; readonly role?: unknown },
): Promise<AddedPerson | NewsletterError> {
  const email = parseEmail(input.email);
  if (typeof email !== 'string') return email;
  if (!isPersonRole(input.role))
    return newsletterError('invalid_parameter', `role must be one of ${PERSON_ROLES.join(', ')}`);
  const password = (deps.newPassword ?? temporaryPassword)();
  if (!(await deps.people.add(email, input.role, password)))
    return newsletterError('person_exists', `${email} is in the console already.`);
  return { email, role: input.role, temporary_password: password };
}

/**
 * Removes a person ([people.manage]); their sessions end when their tokens expire (1 hour).
 * The address may come percent-encoded, as a path segment does (`/people/ada%40example.com`).
 */
export async function removePerson(
  deps: PeopleDependencies,
  input: unknown,
): Promise<{ readonly email: string } | NewsletterError> {
  let decoded = input;
  try {
    if (typeof input === 'string') decoded = decodeURIComponent(input);
  } catch {
    return newsletterError('invalid_parameter', 'email must be a valid e-mail address');
  }
  const email = parseEmail(decoded);
  if (typeof email !== 'string') return email;
  if (!(await deps.people.remove(email)))
    return newsletterError('not_found', `No one of address ${email} is in the console.`);
  return { email };
}

/** Everyone in the console with their role and status, by address. */
export function listPeople(deps: PeopleDependencies): Promise<PersonEntry[]> {
  return deps.people.list();
}
