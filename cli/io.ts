import type { Readable, Writable } from 'node:stream';

/** A writable stream that may be a terminal (process.stdout/stderr are; test captures are not). */
export type OutputStream = Writable & { isTTY?: boolean; columns?: number };

/**
 * Everything the CLI touches outside itself, so tests run it in-process with captured output
 * and their own environment, and the launcher passes the real process's.
 */
export interface CliIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly stdin: Readable;
  /** Where NEWSLETTER_* and DATA_DIR are read from. The AWS SDK itself reads process.env. */
  readonly env: NodeJS.ProcessEnv;
  /** Relative paths (`--file`, `--out`, DATA_DIR) resolve against this. */
  readonly cwd: string;
}

/** The real process's streams, environment and directory. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Writes one line. */
export function writeLine(stream: Writable, line = ''): void {
  stream.write(`${line}\n`);
}
