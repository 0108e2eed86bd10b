/**
 * `newsletter`: the operator CLI (API key, settings, lists, newsletters, subscriber export and
 * import). `run` is the whole program with its streams passed in, so tests run it in-process;
 * bin/newsletter.mjs calls it with the real process's.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { ENV } from '../shared/runtime/environment.ts';
import { CliError, EXIT } from './cli-error.ts';
import { registerKeyCommands } from './commands/key.ts';
import { registerKeysCommands } from './commands/keys.ts';
import { registerListsCommands } from './commands/lists.ts';
import { registerMailCommands } from './commands/mail.ts';
import { registerNewslettersCommands } from './commands/newsletters.ts';
import { registerPeopleCommands } from './commands/people.ts';
import { registerSettingsCommands } from './commands/settings.ts';
import { registerSubscribersCommands } from './commands/subscribers.ts';
import {
  type Connection,
  type ConnectionOptions,
  resolveConnection,
} from './connection/connection.ts';
import { DEFAULT_DATA_DIR, LOCAL_ENDPOINTS_FILE } from './connection/local-endpoints.ts';
import { Services } from './connection/services.ts';
import type { CliContext } from './context.ts';
import { explainError } from './explain-error.ts';
import { type CliIo, processIo } from './io.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

const variable = (name: string, meaning: string): string => `  ${name.padEnd(32)}${meaning}`;

const CONFIGURATION_HELP = `
Configuration (flags win over the environment):
${variable(ENV.table, 'table (or --table)')}
${variable(ENV.apiKeyParameter, 'API key parameter (default /newsletter/api-key)')}
${variable(ENV.settingsParameter, 'settings parameter (default /newsletter/settings)')}
${variable('AWS_REGION, AWS_PROFILE, ...', 'the AWS SDK configuration and credential chain')}

--local reads DATA_DIR/${LOCAL_ENDPOINTS_FILE} (DATA_DIR defaults to ${DEFAULT_DATA_DIR}), written by
\`npm start\`, and talks to that local service with fixed local credentials; the
${ENV.table}-style variables are then ignored.

Exit codes: 0 done, 1 failed (or an import rejected rows), 2 wrong usage.

Examples:
  newsletter --local key rotate
  newsletter --local keys create --name "CRM sync" --permission write
  newsletter --local lists create --name "Weekly" --preassigned
  newsletter --table Newsletter-Table --region eu-west-1 subscribers export --out subscribers.csv
  newsletter --local subscribers import --file subscribers.csv --resume`;

/** Builds the program; every command writes to `io` and reads the global options on demand. */
function buildProgram(context: CliContext): Command {
  const { io } = context;
  const program = new Command('newsletter')
    .description('Operate a serverless-newsletter deployment, on AWS or the local service')
    .version(VERSION)
    // Set before the commands are added, so every command inherits them.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => io.stdout.columns ?? 100,
      getErrHelpWidth: () => io.stderr.columns ?? 100,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .showHelpAfterError('(add --help for usage)')
    .option('--local', 'use the local service started by `npm start`')
    .option(
      '--data-dir <dir>',
      `data folder of the local service (default: DATA_DIR or ${DEFAULT_DATA_DIR})`,
    )
    .option('--table <name>', `DynamoDB table (default: ${ENV.table})`)
    .option('--region <region>', 'AWS region (default: the SDK configuration)')
    .option('--endpoint-dynamodb <url>', 'DynamoDB endpoint URL')
    .option('--endpoint-ssm <url>', 'SSM endpoint URL')
    .addOption(
      new Option(
        '--api-key-parameter <name>',
        `API key parameter (default: ${ENV.apiKeyParameter})`,
      ),
    )
    .addOption(
      new Option(
        '--settings-parameter <name>',
        `settings parameter (default: ${ENV.settingsParameter})`,
      ),
    )
    .option(
      '--dead-letter-queue <url>',
      "the mailer's dead-letter queue (default: NEWSLETTER_MAIL_DEAD_LETTERS, the stack's MailDeadLetters output)",
    )
    .option(
      '--campaign-queue <url>',
      `the campaign planner's queue (default: ${ENV.campaignPlans}, the stack's CampaignQueue output)`,
    )
    .option(
      '--api-root <url>',
      "{api_root} of the API, for links in campaign mails when the settings' public_base_url is empty (default: NEWSLETTER_API_ROOT, the stack's ApiRoot output)",
    )
    .addHelpText('after', CONFIGURATION_HELP);
  registerKeyCommands(program, context);
  registerKeysCommands(program, context);
  registerSettingsCommands(program, context);
  registerListsCommands(program, context);
  registerNewslettersCommands(program, context);
  registerSubscribersCommands(program, context);
  registerMailCommands(program, context);
  registerPeopleCommands(program, context);
  return program;
}

/**
 * Runs the CLI with `argv` (the arguments after the program name) and returns the exit code.
 * Nothing here calls process.exit, so it can run inside a test.
 */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let connection: Connection | undefined;
  let services: Services | undefined;
  const context: CliContext = {
    io,
    exitCode: EXIT.ok,
    services: async () => {
      if (!services) {
        connection = await resolveConnection(program.opts<ConnectionOptions>(), io);
        services = new Services(connection);
      }
      return services;
    },
  };
  const program = buildProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; everything else commander reports is a usage error, already
      // printed by commander itself.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    // The reader went away (`newsletter subscribers export | head`): not an error to report.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return EXIT.ok;
    io.stderr.write(`error: ${explainError(error, connection)}\n`);
    return error instanceof CliError ? error.exitCode : EXIT.failed;
  } finally {
    services?.close();
  }
}
