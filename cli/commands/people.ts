import type { Command } from 'commander';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { PERSON_ROLES } from '../../shared/domain/person.ts';
import {
  addPerson,
  listPeople,
  type PeopleDependencies,
  removePerson,
} from '../../shared/operations/people/manage-people.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { formatTable } from '../format-table.ts';
import { writeLine } from '../io.ts';

async function peopleDependencies(context: CliContext): Promise<PeopleDependencies> {
  return { people: (await context.services()).people() };
}

/**
 * `people add|remove|list`: who signs in to the console, and with which role (the console's
 * Cognito user pool; the same operations as the admin routes `/people`).
 */
export function registerPeopleCommands(program: Command, context: CliContext): void {
  const people = program
    .command('people')
    .description(
      "Manage the people who sign in to the web console (the stack's Cognito user pool)",
    );

  people
    .command('add')
    .description('Add a person with a role; their temporary password is printed this once')
    .argument('<email>', 'their address: they sign in with it, and reset a password there')
    .requiredOption('--role <editor|admin>', 'editor: issues and reports; admin: everything')
    .option('--json', 'print {email, role, temporary_password} as JSON')
    .action(async (email: string, options: { role: string; json?: boolean }) => {
      const added = await addPerson(await peopleDependencies(context), {
        email,
        role: options.role,
      });
      if (isNewsletterError(added))
        throw new CliError(
          added.message,
          added.code === 'invalid_parameter' ? EXIT.usage : EXIT.failed,
        );
      const { stdout, stderr } = context.io;
      if (options.json) writeLine(stdout, JSON.stringify(added));
      else writeLine(stdout, `temporary_password=${added.temporary_password}`);
      writeLine(
        stderr,
        `${added.email} added as ${added.role}. Give them the temporary password (shown only this once); they choose their own at their first sign-in, within 3 days.`,
      );
    });

  people
    .command('remove')
    .description('Remove a person; a session they have open ends within the hour')
    .argument('<email>', 'their address')
    .action(async (email: string) => {
      const removed = await removePerson(await peopleDependencies(context), email);
      if (isNewsletterError(removed)) throw new CliError(removed.message);
      writeLine(context.io.stdout, `Removed ${removed.email}.`);
    });

  people
    .command('list')
    .description(`Show everyone, with their role (${PERSON_ROLES.join(', ')}) and status`)
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const everyone = await listPeople(await peopleDependencies(context));
      if (options.json) {
        writeLine(context.io.stdout, JSON.stringify(everyone, null, 2));
        return;
      }
      writeLine(
        context.io.stdout,
        formatTable(
          ['EMAIL', 'ROLE', 'STATUS', 'ADDED'],
          everyone.map((person) => [person.email, person.role, person.status, person.created]),
        ),
      );
    });
}
