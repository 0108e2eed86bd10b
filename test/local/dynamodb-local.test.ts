import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
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
import { LOCAL_HOST } from '../../infra/local/local-host.ts';
import {
  type DynamoDbLocal,
  startDynamoDbLocal,
} from '../../infra/local/stand-ins/dynamodb-local.ts';

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

// Pids of running DynamoDB Local processes whose command line mentions `marker` (a port or a
// data folder of this test), found via /proc.
function javaPidsWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        return args.some((a) => a.endsWith('DynamoDbLocalLoopback.java')) && args.includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(isRunning);
}

/**
 * Resolves once `pid` has ended. No deadline of its own: the test's timeout bounds it, so the
 * test asserts the event (java ends), not how fast this machine is.
 */
async function ended(pid: number): Promise<void> {
  while (isRunning(pid)) await sleep(20);
}

/** The addresses a process listens on, from /proc/net/tcp (hex address:port, state 0A). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A')
    .map((fields) => {
      const hex = fields[1]?.split(':')[0] ?? '';
      // Little-endian IPv4: 0100007F is 127.0.0.1.
      return [3, 2, 1, 0].map((i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
    });
}

describe('startDynamoDbLocal', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ddb-local-test-'));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves an in-memory, shared database on loopback only and leaves no java behind', async () => {
    const db = await startDynamoDbLocal({});
    try {
      expect(db.endpoint).toBe(`http://${LOCAL_HOST}:${db.port}`);
      // Bound to 127.0.0.1, not to every interface (0.0.0.0 and :: would show here).
      expect(listeningAddresses(db.port)).toEqual(['127.0.0.1']);
      expect(readFileSync('/proc/net/tcp6', 'utf8')).not.toMatch(
        new RegExp(`:${db.port.toString(16).toUpperCase().padStart(4, '0')} [0-9A-F:]+ 0A `),
      );
      expect(db.dataDir).toBeUndefined();
      // Telemetry off: the launcher never configures it, and says so on the command line.
      expect(readFileSync(`/proc/${db.pid}/cmdline`, 'utf8').split('\0')).toContain(
        '-disableTelemetry',
      );
      // The launcher runs compiled (node_modules/.cache), not through Java's source launcher,
      // which would compile it again at every start.
      const command = readFileSync(`/proc/${db.pid}/cmdline`, 'utf8').split('\0');
      expect(command).toContain('DynamoDbLocalLoopback');
      expect(command.filter((arg) => arg.endsWith('.java'))).toEqual([]);
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
    await expect(readItem(db.endpoint)).rejects.toThrow();
    // A second stop() is harmless.
    await db.stop();
  }, 15_000);

  it('keeps data in dataDir across a stop and a start (on a fresh port)', async () => {
    const dir = join(dataDir, 'nested', 'db');
    const first = await startDynamoDbLocal({ dataDir: dir });
    try {
      await createTableWithItem(first);
    } finally {
      await first.stop();
    }
    expect(isRunning(first.pid)).toBe(false);
    expect(existsSync(join(dir, 'shared-local-instance.db'))).toBe(true);

    const second = await startDynamoDbLocal({ dataDir: dir });
    try {
      expect(second.pid).not.toBe(first.pid);
      expect((await readItem(second.endpoint))?.n).toEqual({ N: '1' });
    } finally {
      await second.stop();
    }
    expect(isRunning(second.pid)).toBe(false);
    expect(javaPidsWith(dir)).toEqual([]);
  }, 20_000);

  it('reports a port that is already taken, and leaves no java behind', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, LOCAL_HOST, resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(startDynamoDbLocal({ port })).rejects.toThrow(
        `Could not listen on 127.0.0.1:${port}`,
      );
      expect(javaPidsWith(String(port))).toEqual([]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 15_000);

  it.each<[string, string, NodeJS.Signals | undefined]>([
    ['SIGTERM', 'console.log("pid=" + db.pid); setInterval(() => {}, 1000);', 'SIGTERM'],
    [
      'process.exit()',
      'process.stdout.write("pid=" + db.pid + "\\n", () => process.exit(3));',
      undefined,
    ],
  ])(
    'kills java when the parent ends by %s',
    async (_label, then, signal) => {
      // A separate Node process plays the local runner, so it can be ended for real.
      const code = [
        `import { startDynamoDbLocal } from './infra/local/stand-ins/dynamodb-local.ts';`,
        'const db = await startDynamoDbLocal({});',
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
      const runnerEnded = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
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
        void runnerEnded.then(() => {
          if (!/pid=\d+/.test(output))
            reject(new Error(`runner ended before starting java:\n${output}`));
        });
      });
      if (signal !== undefined) {
        expect(isRunning(javaPid)).toBe(true);
        runner.kill(signal);
      }
      const [exitCode, exitSignal] = await runnerEnded;
      // The runner keeps the signal's default outcome: it dies of the signal (or exits with 3).
      expect(signal === undefined ? exitCode : exitSignal).toBe(signal ?? 3);
      await ended(javaPid);
      expect(isRunning(javaPid)).toBe(false);
    },
    30_000,
  );

  it('reports a clear error and kills java when it does not become ready in time', async () => {
    const dir = join(dataDir, 'too-slow');
    // No java starts within a millisecond, on any machine.
    await expect(startDynamoDbLocal({ dataDir: dir, readyTimeoutMs: 1 })).rejects.toThrow(
      'DynamoDB Local did not start within 1 ms',
    );
    expect(javaPidsWith(dir)).toEqual([]);
  });
});
