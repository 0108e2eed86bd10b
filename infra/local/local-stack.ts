import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, ENV_DEFAULTS } from '../../shared/config/environment.ts';
import { parseSettings } from '../../shared/settings/parse-settings.ts';
import { DynamoStore } from '../../shared/store/dynamo-store.ts';
import { createTable } from './create-table.ts';
import { DEMO_SETTINGS, demoNewsletters } from './demo-data.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.ts';
import { localEnvironment } from './local-environment.ts';
import { type LocalServer, startLocalServer } from './local-server.ts';
import { type ParameterStore, startParameterStore } from './parameter-store.ts';
import { type SesLocal, startSesLocal } from './ses-local.ts';

/** What `npm start` (and the end-to-end tests) configure. */
export interface LocalStackOptions {
  /** API port (`PORT`, default 3000; 0 picks a free one). */
  readonly port: number;
  /** Mail viewer and local SES port (`MAIL_PORT`, default 8005; 0 picks a free one). */
  readonly mailPort: number;
  /** Folder for DynamoDB's data and the parameters (`DATA_DIR`); undefined keeps all in memory. */
  readonly dataDir?: string;
  /** The API key to use (`API_KEY`); default: generated once and kept with the data. */
  readonly apiKey?: string;
  /** Stage, the first path segment (default `api`). */
  readonly stage?: string;
  /** Seed demo settings and newsletters when empty (default true). */
  readonly seed?: boolean;
  /**
   * Seconds the handlers cache the API key and settings (default 5). Tests that change the
   * settings between requests pass 0 so each change applies to the very next request.
   */
  readonly parameterCacheSeconds?: number;
}

/** The running local service. */
export interface LocalStack {
  readonly apiRoot: string;
  readonly apiKey: string;
  readonly mailViewer: string;
  readonly dynamo: DynamoDbLocal;
  readonly ses: SesLocal;
  readonly parameters: ParameterStore;
  readonly server: LocalServer;
  readonly tableName: string;
  /** Stops everything, Java included; safe to call twice. */
  stop(): Promise<void>;
}

const TABLE_NAME = 'newsletter';

/** File in DATA_DIR where a running `npm start` says where its stand-ins listen. */
export const LOCAL_ENDPOINTS_FILE = 'local-endpoints.json';

/** The content of LOCAL_ENDPOINTS_FILE. */
export interface LocalEndpoints {
  readonly dynamodb: string;
  readonly ssm: string;
  readonly ses: string;
  readonly table: string;
  readonly api_root: string;
}

/**
 * Starts the whole service locally: DynamoDB Local, the local SES with its viewer, the
 * parameter-store stand-in, the table, demo data, and the API on the handlers Lambda runs.
 * The domain layer is pointed at the stand-ins through the same environment variables the
 * SDK reads on AWS (`AWS_ENDPOINT_URL_*`), so no code knows it runs locally.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const stage = options.stage ?? 'api';
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const started: { stop(): Promise<void> }[] = [];
  const stopAll = async (): Promise<void> => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
    started.length = 0;
  };
  try {
    const dynamo = await startDynamoDbLocal(dataDir ? { dataDir: join(dataDir, 'dynamodb') } : {});
    started.push(dynamo);
    const ses = await startSesLocal({ port: options.mailPort });
    started.push(ses);
    const parameters = await startParameterStore(
      dataDir ? { file: join(dataDir, 'parameters.json') } : {},
    );
    started.push(parameters);

    Object.assign(process.env, {
      ...localEnvironment({
        dynamodb: dynamo.endpoint,
        ses: ses.endpoint,
        ssm: parameters.endpoint,
        table: TABLE_NAME,
      }),
      // Short, so settings changed with the CLI show up within seconds.
      [ENV.parameterCacheSeconds]: String(options.parameterCacheSeconds ?? 5),
    });

    const apiKey =
      options.apiKey ||
      parameters.get(ENV_DEFAULTS.apiKeyParameter)?.value ||
      randomBytes(24).toString('base64url');
    parameters.put(ENV_DEFAULTS.apiKeyParameter, apiKey, 'SecureString');
    const settingsParameter = parameters.get(ENV_DEFAULTS.settingsParameter);
    if (settingsParameter) {
      // A bad setting stops the start with a message naming it, not a 500 per request later.
      parseSettings(settingsParameter.value);
    } else if (options.seed !== false) {
      parameters.put(ENV_DEFAULTS.settingsParameter, JSON.stringify(DEMO_SETTINGS, null, 2));
    }

    const raw = new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const created = await createTable(raw, TABLE_NAME);
    if (created && options.seed !== false) {
      const store = new DynamoStore(DynamoDBDocumentClient.from(raw), TABLE_NAME);
      for (const issue of demoNewsletters(new Date())) {
        await store.putNewsletterIssue({ ...issue, id: await store.nextId('newsletter') });
      }
    }
    raw.destroy();

    const server = await startLocalServer({ port: options.port, stage });
    started.push(server);
    const apiRoot = `http://localhost:${server.port}/${stage}/newsletter/v1`;
    if (dataDir) {
      // The admin CLI's --local reads this to find the stand-ins' ports, picked free at start.
      const endpoints: LocalEndpoints = {
        dynamodb: dynamo.endpoint,
        ssm: parameters.endpoint,
        ses: ses.endpoint,
        table: TABLE_NAME,
        api_root: apiRoot,
      };
      await writeFile(
        join(dataDir, LOCAL_ENDPOINTS_FILE),
        `${JSON.stringify(endpoints, null, 2)}\n`,
      );
      started.push({ stop: () => rm(join(dataDir, LOCAL_ENDPOINTS_FILE), { force: true }) });
    }
    return {
      apiRoot,
      apiKey,
      mailViewer: ses.viewerUrl,
      dynamo,
      ses,
      parameters,
      server,
      tableName: TABLE_NAME,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
