import type { Command } from 'commander';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import {
  createClientKey,
  type KeyManagementDependencies,
  listClientKeys,
  revokeClientKey,
} from '../../shared/operations/v2/manage-client-keys.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { formatTable } from '../format-table.ts';
import { writeLine } from '../io.ts';

async function keyDependencies(context: CliContext): Promise<KeyManagementDependencies> {
  const services = await context.services();
  return {
    keys: new DynamoClientKeyStore(services.dynamo, services.table),
    now: () => new Date(),
  };
}

/** How long a revoked key may still work in a warm function: its key cache lifetime. */
const REVOKE_NOTE =
  'Running functions refuse it within 5 minutes (their key cache, NEWSLETTER_PARAMETER_CACHE_SECONDS; 5 seconds under npm start).';

/** `keys create|list|revoke`: the named keys of API v2 (stored in the table, secrets hashed). */
export function registerKeysCommands(program: Command, context: CliContext): void {
  const keys = program
    .command('keys')
    .description('Manage the named client keys of API v2 (client_key + client_secret)');

  keys
    .command('create')
    .description('Make a key; the secret is printed this once, only its hash is stored')
    .requiredOption('--name <name>', 'what the key is for (1-100 characters)')
    .requiredOption('--permission <read|write>', 'read: reads only; write: reads and changes')
    .option('--json', 'print {client_key, client_secret, name, permission} as JSON')
    .action(async (options: { name: string; permission: string; json?: boolean }) => {
      const created = await createClientKey(
        await keyDependencies(context),
        options.name,
        options.permission,
      );
      if (isNewsletterError(created)) throw new CliError(created.message, EXIT.usage);
      const { stdout, stderr } = context.io;
      const { record, clientSecret } = created;
      if (options.json) {
        writeLine(
          stdout,
          JSON.stringify({
            client_key: record.client_key,
            client_secret: clientSecret,
            name: record.name,
            permission: record.permission,
          }),
        );
      } else {
        writeLine(stdout, `client_key=${record.client_key}`);
        writeLine(stdout, `client_secret=${clientSecret}`);
      }
      writeLine(
        stderr,
        `Key "${record.name}" (${record.permission}) created. The secret is shown only this once: only its hash is stored.`,
      );
    });

  keys
    .command('list')
    .description('Show every key (never a secret), newest first')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const records = await listClientKeys(await keyDependencies(context));
      const shown = records.map(({ secret_hash: _hash, ...rest }) => rest);
      if (options.json) {
        writeLine(context.io.stdout, JSON.stringify(shown, null, 2));
        return;
      }
      writeLine(
        context.io.stdout,
        formatTable(
          ['CLIENT_KEY', 'PERMISSION', 'CREATED', 'REVOKED', 'NAME'],
          shown.map((key) => [
            key.client_key,
            key.permission,
            key.created,
            key.revoked ?? '-',
            key.name,
          ]),
        ),
      );
    });

  keys
    .command('revoke')
    .description('Revoke a key for good')
    .argument('<client_key>', 'the key to revoke')
    .action(async (clientKey: string) => {
      const revoked = await revokeClientKey(await keyDependencies(context), clientKey.trim());
      if (isNewsletterError(revoked)) throw new CliError(revoked.message);
      writeLine(context.io.stdout, `Revoked key ${revoked.client_key} (${revoked.name}).`);
      writeLine(context.io.stderr, REVOKE_NOTE);
    });
}
