import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CliIo } from '../../cli/io.ts';
import { run } from '../../cli/main.ts';
import {
  type ParameterStore,
  startParameterStore,
} from '../../infra/local/stand-ins/parameter-store.ts';
import type { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import type { SettingsInput } from '../../shared/domain/settings-schema.ts';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { freshStore } from '../support/local-dynamo.ts';
import { runDynamoEndpoint } from '../support/run-dynamo.ts';

/** What one CLI run printed and returned. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A settings document with a public, a private and a pre-assigned list and two profile fields. */
export const CLI_SETTINGS: SettingsInput = {
  lists: [
    { id: 1, name: 'Weekly' },
    { id: 2, name: 'Staff only', private: true },
    { id: 3, name: 'Announcements', preassigned: true },
    { id: 4, name: 'Events' },
  ],
  profile_fields: [
    { id: 'city', name: 'City' },
    { id: 'company', name: 'Company' },
  ],
  sender: { address: 'news@example.com', name: 'Example News' },
};

/** A stream that keeps what is written to it. */
export class CapturedOutput extends PassThrough {
  #text = '';
  isTTY?: boolean;
  columns?: number;

  constructor(tty = false) {
    super();
    if (tty) {
      this.isTTY = true;
      this.columns = 120;
    }
    this.on('data', (chunk: Buffer) => {
      this.#text += chunk.toString('utf8');
    });
  }

  get text(): string {
    return this.#text;
  }
}

/** Runs the CLI in-process with captured output; `stdin` feeds standard input. */
export async function runCli(
  argv: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string; ttyStderr?: boolean },
): Promise<CliResult> {
  const stdout = new CapturedOutput();
  const stderr = new CapturedOutput(options.ttyStderr === true);
  const io: CliIo = {
    stdout,
    stderr,
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    env: options.env ?? {},
    cwd: options.cwd,
  };
  const code = await run(argv, io);
  // Let the PassThroughs deliver what was written before reading them.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** A fresh table, a parameter store with settings, and a data folder that `--local` reads. */
export interface CliWorld {
  readonly dir: string;
  readonly tableName: string;
  readonly store: DynamoStore;
  readonly client: DynamoDBDocumentClient;
  readonly parameters: ParameterStore;
  /** Runs `newsletter --local --data-dir DIR ...argv` in DIR. */
  cli(
    argv: readonly string[],
    options?: { stdin?: string; ttyStderr?: boolean },
  ): Promise<CliResult>;
  close(): Promise<void>;
}

/** Sets up a world; `settings: null` leaves the settings parameter absent. */
export async function cliWorld(settings: SettingsInput | null = CLI_SETTINGS): Promise<CliWorld> {
  const { store, tableName, client } = await freshStore();
  const parameters = await startParameterStore();
  if (settings) {
    parameters.put(ENV_DEFAULTS.settingsParameter, JSON.stringify(settings));
  }
  const dir = await mkdtemp(join(tmpdir(), 'newsletter-cli-'));
  // The file `npm start` writes (see cli/connection/local-endpoints.ts).
  await writeFile(
    join(dir, 'local-endpoints.json'),
    JSON.stringify({
      dynamodb: runDynamoEndpoint(),
      ssm: parameters.endpoint,
      table: tableName,
      api_root: 'http://localhost:3000/api/newsletter/v1',
    }),
  );
  return {
    dir,
    tableName,
    store,
    client,
    parameters,
    cli: (argv, options = {}) =>
      runCli(['--local', '--data-dir', dir, ...argv], { cwd: dir, ...options }),
    close: async () => {
      client.destroy();
      await parameters.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
