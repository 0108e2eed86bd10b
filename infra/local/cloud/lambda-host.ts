/**
 * Runs a Lambda function locally the way Lambda does: each execution environment is its own
 * Node process with exactly the environment the template gives the function plus the
 * variables Lambda itself sets (region, the function's own credentials, its name), importing
 * the handler module once (init) and running one invocation at a time. More environments start
 * when invocations overlap, up to a bound. An invocation that outlives the function's timeout
 * ends its environment, as on Lambda.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { DeployedFunction } from './deployed-stack.ts';
import { LOCAL_REGION, TemplateError } from './intrinsics.ts';
import {
  EXTENSION_PORT_VARIABLE,
  isParametersExtension,
  type ParametersExtension,
  startParametersExtension,
} from './parameters-extension.ts';

/** Temporary credentials of the function's role, as Lambda hands them to the runtime. */
export interface FunctionCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
}

/** Lambda's description of a failed invocation. */
export interface InvocationError {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace: readonly string[];
}

/** The outcome of one invocation: the handler's result, or how it failed. */
export type InvocationResult =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: InvocationError };

/** Where the code comes from: the bundle CDK built, or the TypeScript source it was built from. */
export type CodeSource = 'bundle' | 'source';

/** How to run one function. */
export interface LambdaHostOptions {
  readonly fn: DeployedFunction;
  readonly credentials: FunctionCredentials;
  /** Where every AWS SDK call of the function goes (`AWS_ENDPOINT_URL`). */
  readonly endpoint: string;
  readonly code: CodeSource;
  /** Repository root: source mode resolves `fn.entry` and the TypeScript loader from it. */
  readonly projectRoot: string;
  /** Receives every line the function writes to stdout or stderr. */
  readonly onLog: (line: string, fn: DeployedFunction) => void;
  /** Execution environments that may run at once (default 4). */
  readonly maxEnvironments?: number;
  /** Extra modules every environment imports first (`--import`), e.g. test observers. */
  readonly preload?: readonly string[];
  /**
   * Further variables where the local world differs from AWS beyond the endpoint (where the
   * Cognito stand-in issues tokens); the template's own variables still win.
   */
  readonly localEnvironment?: Readonly<Record<string, string>>;
}

const RUNTIME = resolve(import.meta.dirname, 'lambda-runtime.mjs');

interface Pending {
  readonly resolve: (result: InvocationResult) => void;
  readonly timer: NodeJS.Timeout;
}

/** One execution environment: a child process that runs one invocation at a time. */
class Environment {
  readonly ready: Promise<InvocationError | undefined>;
  busy = false;
  dead = false;
  readonly #child: ChildProcess;
  readonly #pending = new Map<string, Pending>();

  get pid(): number | undefined {
    return this.#child.pid;
  }

  constructor(
    readonly options: LambdaHostOptions,
    /** Set after the template's: where this machine's stand-ins for the layers listen. */
    layerEnvironment: Readonly<Record<string, string>>,
    onExit: (environment: Environment) => void,
  ) {
    const { fn, credentials, code, projectRoot } = options;
    const [file, exportName] = splitHandler(fn.handler);
    let modulePath: string;
    if (code === 'bundle') {
      if (!fn.codeDir) {
        throw new Error(
          `${fn.functionName}: the template has no bundle (synthesize with bundling, or run the sources)`,
        );
      }
      modulePath = resolve(fn.codeDir, `${file}.mjs`);
    } else {
      if (!fn.entry) throw new Error(`${fn.functionName}: the template names no source entry`);
      modulePath = resolve(projectRoot, fn.entry);
    }
    const logStream = `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]${randomUUID().replaceAll('-', '')}`;
    const env: Record<string, string> = {
      // Lambda's own variables (a subset: what SDKs and Powertools read).
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      LANG: 'en_US.UTF-8',
      TZ: ':UTC',
      AWS_REGION: LOCAL_REGION,
      AWS_DEFAULT_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SESSION_TOKEN: credentials.sessionToken,
      AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.functionName}`,
      AWS_LAMBDA_LOG_STREAM_NAME: logStream,
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
      LAMBDA_TASK_ROOT: fn.codeDir ?? projectRoot,
      _HANDLER: fn.handler,
      // What differs locally: every SDK call goes to the loopback endpoint. The environments run
      // on the Node of the host process: the project's Node 24 (npm package `node`), the
      // deployed runtime's major; the notice only matters if someone runs it on an older one.
      AWS_ENDPOINT_URL: options.endpoint,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...options.localEnvironment,
      // Then what the template sets wins, as on Lambda.
      ...fn.environment,
      // Except the port of the extension: every function's stand-in needs its own.
      ...layerEnvironment,
    };
    const execArgv = [
      ...(code === 'source' ? ['--import', 'tsx'] : []),
      ...(options.preload ?? []).flatMap((module) => ['--import', module]),
    ];
    this.#child = fork(RUNTIME, [modulePath, exportName], {
      cwd: code === 'bundle' ? fn.codeDir : projectRoot,
      env,
      execArgv,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    for (const stream of [this.#child.stdout, this.#child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => options.onLog(line, fn));
    }
    this.ready = new Promise((settle) => {
      this.#child.on('message', (message: RuntimeMessage) => {
        if (message.type === 'ready') settle(undefined);
        else if (message.type === 'init-error') settle(message.error);
        else this.#settle(message.id, message);
      });
      this.#child.on('exit', (code, signal) => {
        this.dead = true;
        // How Lambda reports a runtime process that died under an invocation.
        const exitError = (requestId: string): InvocationError => ({
          errorType: 'Runtime.ExitError',
          errorMessage: `RequestId: ${requestId} Error: Runtime exited with error: ${signal ? `signal: ${SIGNAL_NAMES[signal] ?? signal}` : `exit status ${code}`}`,
          trace: [],
        });
        settle(exitError('init'));
        for (const id of [...this.#pending.keys()]) {
          this.#settle(id, { type: 'error', id, error: exitError(id) });
        }
        onExit(this);
      });
    });
  }

  /** Whether an invocation is running in it now (the handler has the event). */
  get invoking(): boolean {
    return this.#pending.size > 0 && !this.dead;
  }

  /** Kills the process at once, as a crash of the worker would (no cleanup, no answer). */
  kill(): void {
    if (!this.dead) this.#child.kill('SIGKILL');
  }

  invoke(event: unknown): Promise<InvocationResult> {
    const { fn } = this.options;
    const id = randomUUID();
    const deadlineMs = Date.now() + fn.timeoutSeconds * 1000;
    return new Promise((settle) => {
      const timer = setTimeout(() => {
        this.#settle(id, {
          type: 'error',
          id,
          error: {
            errorType: 'Sandbox.Timedout',
            errorMessage: `Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds`,
            trace: [],
          },
        });
        // Lambda ends an environment whose invocation timed out.
        this.stop();
      }, fn.timeoutSeconds * 1000);
      this.#pending.set(id, { resolve: settle, timer });
      this.#child.send({
        type: 'invoke',
        id,
        event,
        context: {
          awsRequestId: id,
          functionName: fn.functionName,
          functionVersion: '$LATEST',
          invokedFunctionArn: fn.functionArn,
          memoryLimitInMB: String(fn.memoryMb),
          logGroupName: `/aws/lambda/${fn.functionName}`,
          logStreamName: 'local',
          deadlineMs,
        },
      });
    });
  }

  #settle(id: string, message: RuntimeMessage): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    pending.resolve(
      message.type === 'result'
        ? { ok: true, result: message.result }
        : { ok: false, error: 'error' in message ? message.error : unknownError },
    );
  }

  stop(): void {
    if (!this.dead) this.#child.kill('SIGKILL');
  }

  exited(): Promise<void> {
    if (this.dead || this.#child.exitCode !== null) return Promise.resolve();
    return new Promise((done) => this.#child.once('exit', () => done()));
  }
}

type RuntimeMessage =
  | { type: 'ready' }
  | { type: 'init-error'; error: InvocationError }
  | { type: 'result'; id: string; result: unknown }
  | { type: 'error'; id: string; error: InvocationError };

/** The words Go's runtime (Lambda's) uses for a signal that ended a process. */
const SIGNAL_NAMES: Readonly<Record<string, string>> = {
  SIGKILL: 'killed',
  SIGTERM: 'terminated',
  SIGSEGV: 'segmentation fault',
  SIGABRT: 'aborted',
};

const unknownError: InvocationError = {
  errorType: 'Runtime.Unknown',
  errorMessage: 'unknown',
  trace: [],
};

/** `index.handler` → [`index`, `handler`]. */
function splitHandler(handler: string): [string, string] {
  const dot = handler.lastIndexOf('.');
  return dot === -1 ? [handler, 'handler'] : [handler.slice(0, dot), handler.slice(dot + 1)];
}

/** A function's execution environments, started on demand like Lambda's. */
export class LambdaHost {
  readonly #environments = new Set<Environment>();
  readonly #waiting: (() => void)[] = [];
  #stopped = false;
  #extension: Promise<ParametersExtension> | undefined;

  constructor(readonly options: LambdaHostOptions) {
    for (const layer of options.fn.layers) {
      if (!isParametersExtension(layer)) {
        throw new TemplateError(
          `${options.fn.functionName}: the local cloud cannot run layer ${layer}`,
        );
      }
    }
  }

  /** The variables the layers' stand-ins add, starting them on first use. */
  async #layerEnvironment(): Promise<Record<string, string>> {
    if (this.options.fn.layers.length === 0) return {};
    this.#extension ??= startParametersExtension({
      functionName: this.fn.functionName,
      environment: this.fn.environment,
      credentials: this.options.credentials,
      endpoint: this.options.endpoint,
    });
    return { [EXTENSION_PORT_VARIABLE]: String((await this.#extension).port) };
  }

  get fn(): DeployedFunction {
    return this.options.fn;
  }

  /** Most execution environments at once: more invocations wait for one to be free. */
  get maxEnvironments(): number {
    return this.options.maxEnvironments ?? 4;
  }

  /** Runs one invocation: in a free environment, a new one, or the next to become free. */
  async invoke(event: unknown): Promise<InvocationResult> {
    if (this.#stopped) throw new Error(`${this.fn.functionName} has stopped`);
    const layerEnvironment = await this.#layerEnvironment();
    const environment = await this.#acquire(layerEnvironment);
    try {
      const initError = await environment.ready;
      if (initError) {
        environment.stop();
        return { ok: false, error: initError };
      }
      return await environment.invoke(event);
    } finally {
      environment.busy = false;
      this.#waiting.shift()?.();
    }
  }

  async #acquire(layerEnvironment: Readonly<Record<string, string>>): Promise<Environment> {
    for (;;) {
      const free = [...this.#environments].find((each) => !each.busy && !each.dead);
      if (free) {
        free.busy = true;
        return free;
      }
      if (this.#environments.size < this.maxEnvironments) {
        const environment = new Environment(this.options, layerEnvironment, (gone) => {
          this.#environments.delete(gone);
          this.#waiting.shift()?.();
        });
        environment.busy = true;
        this.#environments.add(environment);
        return environment;
      }
      await new Promise<void>((wake) => this.#waiting.push(wake));
    }
  }

  /** Process ids of the live execution environments (the benchmarks' CPU figures). */
  get pids(): number[] {
    return [...this.#environments].flatMap((each) =>
      each.dead || each.pid === undefined ? [] : [each.pid],
    );
  }

  /** Execution environments running an invocation now. */
  get busyEnvironments(): number {
    return [...this.#environments].filter((each) => each.invoking).length;
  }

  /**
   * Kills (SIGKILL) one execution environment in the middle of an invocation, picked at
   * random, as when a worker dies: that invocation fails with Lambda's `Runtime.ExitError`,
   * and the next invocation starts a fresh environment. False when none was running one.
   */
  killBusyEnvironment(random: () => number = Math.random): boolean {
    const busy = [...this.#environments].filter((each) => each.invoking);
    const victim = busy[Math.min(busy.length - 1, Math.floor(random() * busy.length))];
    victim?.kill();
    return victim !== undefined;
  }

  /** Ends every environment and waits for their processes to exit. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const environments = [...this.#environments];
    for (const environment of environments) environment.stop();
    await Promise.all(environments.map((environment) => environment.exited()));
    for (const wake of this.#waiting.splice(0)) wake();
    await this.#extension?.then(
      (extension) => extension.stop(),
      () => undefined,
    );
  }
}
