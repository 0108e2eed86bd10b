import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startParametersExtension } from '../infra/local/cloud/parameters-extension.ts';
import { startParameterStore } from '../infra/local/stand-ins/parameter-store.ts';
import { startSesLocal } from '../infra/local/stand-ins/ses-local.ts';
import { DynamoStore } from '../shared/adapters/store/dynamo-store.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import type { Settings } from '../shared/domain/settings-schema.ts';
import { createNewsletter } from '../shared/newsletter.ts';
import { NO_METRICS } from '../shared/operations/dependencies.ts';
import { ENV_DEFAULTS } from '../shared/runtime/environment.ts';
import { RecordingLogger, RecordingMailer } from '../test/support/fixtures.ts';
import { settling, streamWorker } from '../test/support/stream-worker.ts';
import { PROJECT_ROOT } from './bundles.ts';
import { seedListings } from './capacity.ts';
import { createBenchTable, type LocalClients } from './dynamo.ts';
import type { WarmConfig, WarmResult } from './warm-child.ts';
import { localEnvironment, WARM_CREDENTIALS } from './warm-environment.ts';

/** How long and how often the warm run calls each handler. */
export interface WarmOptions {
  readonly dynamoEndpoint: string;
  /** Route name → bundle file (the deployed bundles). */
  readonly bundles: Readonly<Record<string, string>>;
  /** bench/warm-sdk.ts built with the same options. */
  readonly sdkBundle: string;
  readonly warmUp: number;
  readonly repetitions: number;
  /** Only the scenarios whose name starts with this. */
  readonly only?: string;
  /** Extra Node flags for the handlers' process (e.g. `--cpu-prof`). */
  readonly execArgv?: readonly string[];
  readonly progress: (message: string) => void;
}

const TABLE = 'warm';

/** The raw token in the newest mailed link of a kind. */
function linkToken(mailer: RecordingMailer, email: string, kind: 'confirm' | 'unsubscribe') {
  const mail = mailer.sent.filter((sent) => sent.to === email).at(-1);
  const url = kind === 'confirm' ? mail?.confirmUrl : mail?.unsubscribeUrl;
  const token = url ? new URL(url).searchParams.get('token') : null;
  if (!token) throw new Error(`bench: no ${kind} link for ${email}`);
  return token;
}

/**
 * Runs every handler warm, in-process, against DynamoDB Local with the parameter-store
 * stand-in (API key and settings, cached by the functions as deployed) and the local SES,
 * next to bare SDK calls doing the same DynamoDB work. The handlers run in a child process
 * (bench/warm-child.ts) whose stdout, the functions' log, is drained here.
 */
export async function measureWarm(
  clients: LocalClients,
  settings: Settings,
  options: WarmOptions,
): Promise<{ results: WarmResult[]; logLines: number }> {
  await createBenchTable(clients, TABLE);
  const store = new DynamoStore(clients.doc, TABLE);
  await seedListings(clients, store, TABLE, settings, 25);

  // Subjects for the scenarios, made through the function class like any caller would.
  const mailer = new RecordingMailer();
  const deps = {
    store,
    settings: async () => settings,
    now: () => new Date(),
    log: new RecordingLogger(),
    metrics: NO_METRICS,
  };
  const newsletter = settling(
    createNewsletter(deps),
    streamWorker(clients.doc, TABLE, { ...deps, mailer }).settle,
  );
  const confirmedEmail = 'confirmed@example.com';
  const pendingEmail = 'pending@example.com';
  for (const result of [
    await newsletter.add_subscriber({ email: confirmedEmail, name: 'Connie', status: 'C' }),
    await newsletter.subscribe({ email: pendingEmail, name: 'Penny' }),
    await newsletter.subscribe({ email: 'linked@example.com', name: 'Lin' }),
    await newsletter.confirm_subscription({
      token: linkToken(mailer, 'linked@example.com', 'confirm'),
    }),
  ]) {
    if (isNewsletterError(result)) throw new Error(`bench: warm setup failed: ${result.message}`);
  }

  const parameters = await startParameterStore();
  const ses = await startSesLocal();
  // The deployed functions read the key and the settings through the extension.
  const extension = await startParametersExtension({
    functionName: 'warm',
    environment: { PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'false' },
    credentials: WARM_CREDENTIALS,
    endpoint: parameters.endpoint,
  });
  try {
    const apiKey = randomBytes(24).toString('base64url');
    parameters.put(ENV_DEFAULTS.apiKeyParameter, apiKey, 'SecureString');
    parameters.put(ENV_DEFAULTS.settingsParameter, JSON.stringify(settings));
    const config: WarmConfig = {
      bundles: options.bundles,
      sdkBundle: options.sdkBundle,
      table: TABLE,
      apiKey,
      confirmedEmail,
      confirmToken: linkToken(mailer, pendingEmail, 'confirm'),
      unsubscribeToken: linkToken(mailer, 'linked@example.com', 'unsubscribe'),
      warmUp: options.warmUp,
      repetitions: options.repetitions,
      ...(options.only ? { only: options.only } : {}),
    };
    const child = fork(join(PROJECT_ROOT, 'bench', 'warm-child.ts'), [], {
      execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      env: {
        ...process.env,
        // The functions run without NODE_OPTIONS (the parameter cache keeps its default).
        NODE_OPTIONS: '',
        ...localEnvironment({
          dynamodb: options.dynamoEndpoint,
          ses: ses.endpoint,
          parametersExtensionPort: extension.port,
          table: TABLE,
        }),
      },
    });
    let logLines = 0;
    child.stdout?.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) logLines += 1;
    });
    const results = await new Promise<WarmResult[]>((resolve, reject) => {
      child.on('message', (message: { progress?: string; results?: WarmResult[] }) => {
        if (message.progress) options.progress(`  ${message.progress}`);
        // IPC carries JSON: a ratio to nothing (NaN) arrives as null.
        const number = (value: number | null) => (value === null ? Number.NaN : value);
        if (message.results) {
          resolve(
            message.results.map((result) => ({
              ...result,
              bareMedianMs: number(result.bareMedianMs),
              bareP99Ms: number(result.bareP99Ms),
              medianRatio: number(result.medianRatio),
              p99Ratio: number(result.p99Ratio),
            })),
          );
        }
      });
      child.once('exit', (code) => reject(new Error(`bench: warm run exited with ${code}`)));
      child.send({ config });
    });
    return { results, logLines };
  } finally {
    await extension.stop();
    await ses.stop();
    await parameters.stop();
  }
}
