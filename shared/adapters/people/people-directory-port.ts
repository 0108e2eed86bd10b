import type { PersonEntry, PersonRole } from '../../domain/person.ts';

/** The console's people as the user pool keeps them (Cognito's admin API). */
export interface PeopleDirectory {
  /**
   * Adds a person with a temporary password (no mail from Cognito: the password is shown to
   * whoever added them) in the group of their role. `false` when the address is taken.
   */
  add(email: string, role: PersonRole, temporaryPassword: string): Promise<boolean>;
  /** Removes a person; `false` when there is none of that address. */
  remove(email: string): Promise<boolean>;
  /** Everyone, with their role. */
  list(): Promise<PersonEntry[]>;
}
