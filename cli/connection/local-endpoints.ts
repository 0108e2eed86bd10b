import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as v from 'valibot';
import { CliError } from '../cli-error.ts';

/** Name of the file `npm start` writes into its data folder for `--local`. */
export const LOCAL_ENDPOINTS_FILE = 'local-endpoints.json';
/** The data folder `npm start` uses when DATA_DIR is not set. */
export const DEFAULT_DATA_DIR = '.data';

const url = v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//, 'must be an http(s) URL'));

/**
 * `DATA_DIR/local-endpoints.json`, written by `npm start` once everything listens (its
 * internal ports are picked free at each start). Extra keys are ignored so the runner can add
 * some without breaking older CLIs.
 */
const LocalEndpointsSchema = v.looseObject({
  /** DynamoDB Local, e.g. `http://127.0.0.1:41234`. */
  dynamodb: url,
  /** The parameter-store stand-in. */
  ssm: url,
  /** The local SES (informational). */
  ses: v.optional(url),
  /** The mailer's dead-letter queue at the SQS stand-in. */
  mail_dead_letters: v.optional(url),
  /** The campaign planner's queue at the SQS stand-in. */
  campaign_queue: v.optional(url),
  /**
   * The local EventBridge Scheduler, its schedule group, the function and role schedules use,
   * and the ARN of their dead-letter queue.
   */
  scheduler: v.optional(
    v.looseObject({
      endpoint: url,
      group: v.pipe(v.string(), v.minLength(1)),
      target: v.pipe(v.string(), v.minLength(1)),
      role: v.pipe(v.string(), v.minLength(1)),
      dead_letters: v.pipe(v.string(), v.minLength(1)),
    }),
  ),
  /** The Cognito stand-in and the console's user pool in it (`people`). */
  people: v.optional(
    v.looseObject({ endpoint: url, user_pool_id: v.pipe(v.string(), v.minLength(1)) }),
  ),
  /** Table name, `newsletter` under npm start. */
  table: v.pipe(v.string(), v.minLength(3)),
  /** `{api_root}` of the local API (informational). */
  api_root: v.optional(url),
  /** Parameter names, when the runner does not use the defaults. */
  api_key_parameter: v.optional(v.pipe(v.string(), v.minLength(1))),
  settings_parameter: v.optional(v.pipe(v.string(), v.minLength(1))),
});

/** The local service's addresses as `npm start` publishes them. */
export type LocalEndpoints = v.InferOutput<typeof LocalEndpointsSchema>;

/** Where the endpoints file of a data folder is. */
export function localEndpointsPath(dataDir: string, cwd: string): string {
  return join(resolve(cwd, dataDir), LOCAL_ENDPOINTS_FILE);
}

/**
 * Reads the endpoints of the running local service.
 *
 * @throws CliError when the file is missing (the service is not running, or runs with
 * another DATA_DIR) or malformed, naming the file and what to do.
 */
export async function readLocalEndpoints(dataDir: string, cwd: string): Promise<LocalEndpoints> {
  const file = localEndpointsPath(dataDir, cwd);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(
        `--local: ${file} does not exist. Start the local service with \`npm start\` (with the same DATA_DIR), or pass --data-dir.`,
      );
    }
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`--local: ${file} is not valid JSON`);
  }
  const result = v.safeParse(LocalEndpointsSchema, json);
  if (!result.success) {
    const issue = result.issues[0];
    const path = issue ? v.getDotPath(issue) : null;
    throw new CliError(`--local: ${file}: ${path ?? 'file'}: ${issue?.message ?? 'invalid'}`);
  }
  return result.output;
}
