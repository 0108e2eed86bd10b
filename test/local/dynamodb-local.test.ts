import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { findFreePort, LOCAL_HOST } from '../../infra/local/free-port.ts';

// Hoisted above the imports, so the SDK sees it whenever it decides to warn.
vi.hoisted(() => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
});

const TABLE = 'subscribers-test';
const repoRoot = join(import.meta.dirname, '..', '..');

function client(endpoint: string, accessKeyId = 'local', region = 'us-east-1'): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region,
    credentials: { accessKeyId, secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

async function createTableWithItem(db: DynamoDbLocal): Promise<void> {
  const ddb = client(db.endpoint);
  await ddb.send(
    new CreateTableCommand({
      TableName: TABLE,
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await ddb.send(
    new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'a@example.com' }, n: { N: '1' } } }),
  );
  ddb.destroy();
}

async function readItem(endpoint: string, accessKeyId?: string, region?: string) {
  const ddb = client(endpoint, accessKeyId, region);
  try {
    const out = await ddb.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'a@example.com' } } }),
    );
    return out.Item;
  } finally {
    ddb.destroy();
  }
}

// A killed child of a dead parent stays a zombie until init reaps it; it runs no code and holds
// no port, so it counts as gone.
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

// Pids of running DynamoDB Local processes started with `-port <port>`, found via /proc.
function javaPidsOnPort(port: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        const at = args.indexOf('-port');
        return args.some((a) => a.endsWith('DynamoDBLocal.jar')) && args[at + 1] === String(port);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(isRunning);
}

async function waitUntilGone(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(pid)) {
      return true;
    }
    await sleep(50);
  }
  return !isRunning(pid);
}

describe('startDynamoDbLocal', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ddb-local-test-'));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves an in-memory, shared database and leaves no java behind after stop()', async () => {
    const db = await startDynamoDbLocal({});
    try {
      expect(db.endpoint).toBe(`http://${LOCAL_HOST}:${db.port}`);
      expect(db.dataDir).toBeUndefined();
      expect(isRunning(db.pid)).toBe(true);
      await createTableWithItem(db);
      // -sharedDb: other credentials and another region see the same table.
      expect(await readItem(db.endpoint, 'otherKey', 'eu-west-1')).toEqual({
        pk: { S: 'a@example.com' },
        n: { N: '1' },
      });
    } finally {
      await db.stop();
    }
    expect(isRunning(db.pid)).toBe(false);
    expect(javaPidsOnPort(db.port)).toEqual([]);
    await expect(readItem(db.endpoint)).rejects.toThrow();
    // A second stop() is harmless.
    await db.stop();
  }, 15_000);

  it('keeps data in dataDir across stop and start on the same port', async () => {
    const dir = join(dataDir, 'nested', 'db');
    const first = await startDynamoDbLocal({ dataDir: dir });
    try {
      await createTableWithItem(first);
    } finally {
      await first.stop();
    }
    expect(isRunning(first.pid)).toBe(false);
    expect(existsSync(join(dir, 'shared-local-instance.db'))).toBe(true);

    const second = await startDynamoDbLocal({ port: first.port, dataDir: dir });
    try {
      expect(second.pid).not.toBe(first.pid);
      expect(second.endpoint).toBe(first.endpoint);
      expect((await readItem(second.endpoint))?.n).toEqual({ N: '1' });
    } finally {
      await second.stop();
    }
    expect(isRunning(second.pid)).toBe(false);
    expect(javaPidsOnPort(second.port)).toEqual([]);
  }, 20_000);

  it('refuses a port that is already taken, without starting java', async () => {
    const port = await findFreePort();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, LOCAL_HOST, resolve));
    try {
      await expect(startDynamoDbLocal({ port })).rejects.toThrow(`port ${port} is already in use`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it.each<[string, string, NodeJS.Signals | undefined]>([
    ['SIGTERM', 'setInterval(() => {}, 1000);', 'SIGTERM'],
    ['process.exit()', 'setTimeout(() => process.exit(3), 200);', undefined],
  ])(
    'kills java when the parent ends by %s',
    async (_label, then, signal) => {
      // A separate Node process plays the local runner, so it can be ended for real.
      const code = [
        `import { startDynamoDbLocal } from './infra/local/dynamodb-local.ts';`,
        'const db = await startDynamoDbLocal({});',
        'console.log("pid=" + db.pid);',
        then,
      ].join('\n');
      const runner = spawn(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', code],
        {
          cwd: repoRoot,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        runner.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
      );
      let output = '';
      const javaPid = await new Promise<number>((resolve, reject) => {
        runner.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /pid=(\d+)/.exec(output);
          if (match?.[1] !== undefined) {
            resolve(Number(match[1]));
          }
        });
        runner.stderr.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        void ended.then(() => reject(new Error(`runner ended before starting java:\n${output}`)));
      });
      expect(isRunning(javaPid)).toBe(true);

      if (signal !== undefined) {
        runner.kill(signal);
      }
      const [exitCode, exitSignal] = await ended;
      // The runner keeps the signal's default outcome: it dies of the signal (or exits with 3).
      expect(signal === undefined ? exitCode : exitSignal).toBe(signal ?? 3);
      expect(await waitUntilGone(javaPid)).toBe(true);
    },
    15_000,
  );

  it('reports a clear error and kills java when it does not become ready in time', async () => {
    const port = await findFreePort();
    await expect(startDynamoDbLocal({ port, readyTimeoutMs: 1 })).rejects.toThrow(
      `DynamoDB Local did not answer on http://127.0.0.1:${port} within 1 ms`,
    );
    expect(javaPidsOnPort(port)).toEqual([]);
  });
});
